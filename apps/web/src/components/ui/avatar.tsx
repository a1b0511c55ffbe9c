import type { ReactNode } from "react";
import styles from "./avatar.module.css";

/** The letter an avatar shows for a name (its first, upper case), or `fallback` without one. */
export function initialOf(name: string | null | undefined, fallback = "?"): string {
  return name?.trim().charAt(0).toUpperCase() || fallback;
}

/** A round initial (its children); decorative, the name is always written beside it. */
export function Avatar({
  agent = false,
  className,
  children,
}: {
  agent?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const classes = [styles.avatar, agent && styles.agent, className].filter(Boolean).join(" ");
  return (
    <span className={classes} aria-hidden="true">
      {children}
    </span>
  );
}
