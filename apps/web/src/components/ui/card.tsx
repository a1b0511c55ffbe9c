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
