"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import styles from "./split-view.module.css";

/**
 * Class names for the list side: its box, its heading row, its line when it is empty, and a row
 * (a link to what it opens, marked while open).
 */
export const splitList = {
  list: styles.list,
  head: styles.listHead,
  empty: styles.listEmpty,
  row: styles.listRow,
} as const;

/**
 * A list beside what is open in it (chats, the inbox). On a phone they are separate screens: at
 * `root` the list shows (with the root page under it when `rootPageOnPhone`), and anything opened
 * from it fills the screen with its own way back.
 */
export function SplitView({
  root,
  list,
  children,
  rootPageOnPhone = false,
}: {
  root: string;
  list: ReactNode;
  children: ReactNode;
  rootPageOnPhone?: boolean;
}) {
  const atList = usePathname() === root;
  return (
    <div
      className={styles.split}
      data-at={atList ? "list" : "detail"}
      data-root-page-on-phone={rootPageOnPhone}
    >
      {list}
      <div className={styles.main}>{children}</div>
    </div>
  );
}
