import Link from "next/link";
import type { ComponentProps } from "react";
import styles from "./button.module.css";

export type ButtonVariant = "primary" | "secondary" | "danger" | "icon" | "text";

type Look = {
  /** primary (the default): the one main action; icon: an icon alone (give it an aria-label);
   * text: an accent word in running text. */
  variant?: ButtonVariant;
  small?: boolean;
};

/** The class names of a button's look, for a component that renders its own element. */
export function buttonClass({ variant = "primary", small = false }: Look, extra?: string): string {
  return [
    styles.button,
    variant === "primary" ? "" : styles[variant],
    small ? styles.small : "",
    extra ?? "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** A button of the console; `type` defaults to "button" so it never submits a form by accident. */
export function Button({
  variant,
  small,
  className,
  type = "button",
  ...props
}: Look & ComponentProps<"button">) {
  return <button type={type} className={buttonClass({ variant, small }, className)} {...props} />;
}

/** A link that looks like a button (it goes somewhere; a Button does something). */
export function ButtonLink({
  variant,
  small,
  className,
  ...props
}: Look & ComponentProps<typeof Link>) {
  return <Link className={buttonClass({ variant, small }, className)} {...props} />;
}
