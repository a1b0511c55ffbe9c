import type { ComponentProps } from "react";
import styles from "./badge.module.css";

export type BadgeTone = "neutral" | "ok" | "warn" | "bad" | "off";

/** A short state word ("Active", "Paused") in a pill coloured by its tone. */
export function Badge({
  tone = "neutral",
  className,
  ...props
}: { tone?: BadgeTone } & ComponentProps<"span">) {
  const classes = [styles.badge, tone === "neutral" ? "" : styles[tone], className];
  return <span className={classes.filter(Boolean).join(" ")} {...props} />;
}
