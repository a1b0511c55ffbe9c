import type { ComponentProps } from "react";
import styles from "./empty-state.module.css";

/** What shows in place of an empty list: one sentence saying what would bring something here. */
export function EmptyState({ className, ...props }: ComponentProps<"p">) {
  return <p className={className ? `${styles.empty} ${className}` : styles.empty} {...props} />;
}
