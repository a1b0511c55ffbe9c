import { sentence } from "./errors";
import styles from "./field-error.module.css";

/** A field's error, tied to its input by id so screen readers announce it with the field. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span className={styles.error} id={id} role="alert">
      {sentence(message)}
    </span>
  );
}

/** Props that mark an input invalid and point it at its error. */
export function invalidProps(id: string, message: string | undefined) {
  return message ? { "aria-invalid": true, "aria-describedby": id } : {};
}
