"use client";

import { type ReactNode, type RefObject, useEffect, useRef } from "react";

const focusable =
  'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * The console's modal dialog, the one behaviour every dialog shares: a native `<dialog>` shown
 * modal (role=dialog, the page behind it inert), focus starts on `initialFocus` (else the first
 * control), Tab stays inside, Escape asks `onClose`, and when the dialog goes away focus goes
 * back to whatever had it when it opened. Render it while open; unmounting closes it.
 */
export function Modal({
  onClose,
  initialFocus,
  closeOnBackdrop = false,
  className,
  labelledBy,
  label,
  describedBy,
  testId,
  children,
}: {
  onClose: () => void;
  initialFocus?: RefObject<HTMLElement | null>;
  /** A click beside the content (on the backdrop) closes it too, as a photo viewer does. */
  closeOnBackdrop?: boolean;
  className?: string;
  labelledBy?: string;
  label?: string;
  describedBy?: string;
  testId?: string;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    const returnTo = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!element.open) element.showModal();
    (initialFocus?.current ?? element.querySelector<HTMLElement>(focusable))?.focus();
    return () => {
      // Close before giving focus back: while the modal is open the page behind is inert.
      if (element.open) element.close();
      if (returnTo?.isConnected) returnTo.focus();
    };
  }, [initialFocus]);

  return (
    <dialog
      ref={dialog}
      className={className}
      aria-labelledby={labelledBy}
      aria-label={label}
      aria-describedby={describedBy}
      data-testid={testId}
      // Escape: the browser's cancel; close our way, so the owner's state follows.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (closeOnBackdrop && event.target === event.currentTarget) onClose();
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
      {children}
    </dialog>
  );
}
