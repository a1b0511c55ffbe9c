import type { ComponentProps } from "react";
import styles from "./table.module.css";

/** Class names for a Table's cells: the row's name, its buttons, and a sentence (wraps left). */
export const cell = { main: styles.main, actions: styles.actions, long: styles.long } as const;

/** A table of the console; `stackOnPhone` makes each row a card of label–value lines on a phone. */
export function Table({
  stackOnPhone = false,
  className,
  ...props
}: { stackOnPhone?: boolean } & ComponentProps<"table">) {
  const classes = [styles.table, stackOnPhone && styles.stack, className].filter(Boolean).join(" ");
  return <table className={classes} {...props} />;
}
