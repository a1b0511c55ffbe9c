import ui from "./ui/layout.module.css";
/** The message above or below a form when a call failed; nothing when there is none. */
export function FormError({ message, testId }: { message?: string | null; testId?: string }) {
  if (!message) return null;
  return (
    <p className={ui.formError} role="alert" data-testid={testId}>
      {message}
    </p>
  );
}
