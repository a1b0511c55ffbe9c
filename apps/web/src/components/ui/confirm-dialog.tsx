"use client";

import { type ReactNode, useId, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { Button, type ButtonVariant } from "./button";
import styles from "./confirm-dialog.module.css";
import { Modal } from "./modal";

/**
 * A button that asks before it acts, in the console's own modal dialog (a native `<dialog>`:
 * role=dialog, the page behind it inert). Focus starts on Cancel, Tab stays inside, Escape or
 * Cancel closes it, and focus goes back to the button that opened it.
 */
export function ConfirmButton({
  children,
  title,
  body,
  confirmLabel,
  onConfirm,
  variant,
  small,
  className,
  disabled,
  testId,
  ariaLabel,
}: {
  children: ReactNode;
  /** The question, e.g. "Revoke token sbat_ab…?". */
  title: string;
  /** What happens if they say yes. */
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  /** The button's look; a danger button's dialog confirms with a danger button too. */
  variant?: ButtonVariant;
  small?: boolean;
  className?: string;
  disabled?: boolean;
  testId?: string;
  ariaLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button
        variant={variant}
        small={small}
        className={className}
        disabled={disabled}
        aria-label={ariaLabel}
        aria-haspopup="dialog"
        data-testid={testId}
        onClick={() => setOpen(true)}
      >
        {children}
      </Button>
      {open && (
        <ConfirmDialog
          title={title}
          body={body}
          confirmLabel={confirmLabel}
          danger={variant === "danger"}
          testId={testId ? `${testId}-confirm` : "confirm"}
          onClose={(confirmed) => {
            // Close first (focus back on the button), then act: acting may disable the button.
            flushSync(() => setOpen(false));
            if (confirmed) onConfirm();
          }}
        />
      )}
    </>
  );
}

function ConfirmDialog({
  title,
  body,
  confirmLabel,
  danger,
  testId,
  onClose,
}: {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  danger: boolean;
  testId: string;
  onClose: (confirmed: boolean) => void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  return (
    <Modal
      className={styles.dialog}
      labelledBy={`${id}-title`}
      describedBy={`${id}-body`}
      testId={testId}
      initialFocus={cancel}
      onClose={() => onClose(false)}
    >
      <h2 id={`${id}-title`} className={styles.title}>
        {title}
      </h2>
      <div id={`${id}-body`} className={styles.body}>
        {body}
      </div>
      <div className={styles.actions}>
        <Button
          ref={cancel}
          variant="secondary"
          onClick={() => onClose(false)}
          data-testid={`${testId}-cancel`}
        >
          Cancel
        </Button>
        <Button
          variant={danger ? "danger" : "primary"}
          onClick={() => onClose(true)}
          data-testid={`${testId}-ok`}
        >
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}
