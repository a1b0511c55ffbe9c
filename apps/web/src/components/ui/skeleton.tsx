import ui from "./layout.module.css";
import styles from "./skeleton.module.css";

/**
 * Grey placeholder lines where content is on its way, in place of "Loading…". Screen readers
 * hear one "Loading <what>" instead of the shapes.
 */
export function Skeleton({ lines = 3, label }: { lines?: number; label: string }) {
  return (
    <div className={styles.skeleton} role="status" aria-live="polite" data-testid="skeleton">
      <span className={ui.visuallyHidden}>Loading {label}…</span>
      {Array.from({ length: lines }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholder lines have nothing else.
        <span key={i} className={styles.line} aria-hidden="true" />
      ))}
    </div>
  );
}
