"use client";

import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import styles from "./confirm-dialog.module.css";

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
  className?: string;
  disabled?: boolean;
  testId?: string;
  ariaLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={trigger}
        type="button"
        className={className}
        disabled={disabled}
        aria-label={ariaLabel}
        aria-haspopup="dialog"
        data-testid={testId}
        onClick={() => setOpen(true)}
      >
        {children}
      </button>
      {open && (
        <ConfirmDialog
          title={title}
          body={body}
          confirmLabel={confirmLabel}
          danger={className?.includes("danger") ?? false}
          testId={testId ? `${testId}-confirm` : "confirm"}
          onClose={(confirmed) => {
            setOpen(false);
            trigger.current?.focus();
            if (confirmed) onConfirm();
          }}
        />
      )}
    </>
  );
}

const focusable =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

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
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  // Close the modal before the caller moves focus: while it is open the page behind is inert.
  const finish = (confirmed: boolean) => {
    dialog.current?.close();
    onClose(confirmed);
  };
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    cancel.current?.focus();
    return () => {
      if (element.open) element.close();
    };
  }, []);

  return (
    <dialog
      ref={dialog}
      className={styles.dialog}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      data-testid={testId}
      // Escape: the browser's cancel; close our way so focus returns to the trigger.
      onCancel={(event) => {
        event.preventDefault();
        finish(false);
      }}
      onKeyDown={(event) => {
        if (event.key !== "Tab") return;
        const items = [...(dialog.current?.querySelectorAll<HTMLElement>(focusable) ?? [])];
        const first = items[0];
        const last = items[items.length - 1];
        if (!first || !last) return;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }}
    >
      <h2 id={`${id}-title`} className={styles.title}>
        {title}
      </h2>
      <div id={`${id}-body`} className={styles.body}>
        {body}
      </div>
      <div className={styles.actions}>
        <button
          ref={cancel}
          type="button"
          className="secondary"
          onClick={() => finish(false)}
          data-testid={`${testId}-cancel`}
        >
          Cancel
        </button>
        <button
          type="button"
          className={danger ? "danger" : undefined}
          onClick={() => finish(true)}
          data-testid={`${testId}-ok`}
        >
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
