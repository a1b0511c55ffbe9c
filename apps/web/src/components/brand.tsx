import Link from "next/link";
import styles from "./brand.module.css";

/** The Switchboard name and mark; a link home when given `href`, light on the dark side bar. */
export function Brand({
  href,
  onDark = false,
  className,
}: {
  href?: string;
  onDark?: boolean;
  className?: string;
}) {
  const classes = [styles.brand, onDark && styles.onDark, className].filter(Boolean).join(" ");
  const content = (
    <>
      <span className={styles.mark} aria-hidden="true" />
      Switchboard
    </>
  );
  return href ? (
    <Link href={href} className={classes}>
      {content}
    </Link>
  ) : (
    <div className={classes}>{content}</div>
  );
}
