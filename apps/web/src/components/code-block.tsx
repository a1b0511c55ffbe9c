import type { ReactNode } from "react";
import styles from "./code-block.module.css";

/**
 * Preformatted text in a box that scrolls when long. It takes keyboard focus, so someone without
 * a mouse can scroll it too (a heading or caption beside it says what it is).
 */
export function CodeBlock({
  className = styles.block,
  testId,
  children,
}: {
  className?: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <pre className={className} tabIndex={0} data-testid={testId}>
      {children}
    </pre>
  );
}
