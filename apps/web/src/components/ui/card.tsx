import type { ComponentProps, ElementType } from "react";
import styles from "./card.module.css";

type CardProps<Tag extends ElementType> = { as?: Tag } & ComponentProps<Tag>;

/** A panel for one thing; `as` picks its element (a section by default, an li in a list). */
export function Card<Tag extends ElementType = "section">({
  as,
  className,
  ...props
}: CardProps<Tag>) {
  const Element: ElementType = as ?? "section";
  return <Element className={className ? `${styles.card} ${className}` : styles.card} {...props} />;
}

/** A card's heading line: its h2, and a badge or hint at the other end. */
export function CardHead({ className, ...props }: ComponentProps<"div">) {
  return <div className={className ? `${styles.head} ${className}` : styles.head} {...props} />;
}
