"use client";

import {
  MAX_REJECTION_REASON,
  type RejectionChoice,
  type RejectionInput,
} from "@switchboard/contract";
import { useId, useState } from "react";
import { rejectionChoiceWords } from "~/components/proposal-words";
import { Button } from "~/components/ui/button";
import dialog from "~/components/ui/confirm-dialog.module.css";
import ui from "~/components/ui/layout.module.css";
import { Modal } from "~/components/ui/modal";
import styles from "./reject-dialog.module.css";

/**
 * Reject asks, optionally, why: a quick choice and a short reason, both for the agent, which
 * sees them as `action.rejection`. Rejecting with neither is one keypress away (Reject). The
 * console's modal gives the focus rules: it starts on the first choice, stays inside, and goes
 * back to the card's Reject on Cancel or Escape. `onClose` gets the why (null: cancelled).
 */
export function RejectDialog({
  title,
  onClose,
}: {
  /** The card's title, named in the question. */
  title: string;
  onClose: (rejection: RejectionInput | null) => void;
}) {
  const id = useId();
  const [choice, setChoice] = useState<RejectionChoice | undefined>();
  const [reason, setReason] = useState("");
  const reject = () => onClose({ choice, reason: reason.trim() || undefined });
  return (
    <Modal
      className={dialog.dialog}
      labelledBy={`${id}-title`}
      describedBy={`${id}-body`}
      testId="reject-dialog"
      onClose={() => onClose(null)}
    >
      <form
        className={ui.stack}
        onSubmit={(event) => {
          event.preventDefault();
          reject();
        }}
      >
        <h2 id={`${id}-title`} className={`${dialog.title} ${styles.title}`}>
          Reject “{title}”?
        </h2>
        <p id={`${id}-body`} className={dialog.body}>
          You may tell the agent why, so it asks better next time. Both are optional.
        </p>
        <fieldset>
          <legend>Why not?</legend>
          <div className={styles.choices}>
            {(Object.keys(rejectionChoiceWords) as RejectionChoice[]).map((value) => (
              <label key={value} className={ui.check}>
                <input
                  type="radio"
                  name={`${id}-choice`}
                  value={value}
                  checked={choice === value}
                  onChange={() => setChoice(value)}
                  data-testid={`reject-choice-${value}`}
                />
                {rejectionChoiceWords[value]}
              </label>
            ))}
            {/* A radio cannot be unchecked: this one takes a quick choice back. */}
            <label className={ui.check}>
              <input
                type="radio"
                name={`${id}-choice`}
                value=""
                checked={choice === undefined}
                onChange={() => setChoice(undefined)}
                data-testid="reject-choice-none"
              />
              No particular reason
            </label>
          </div>
        </fieldset>
        <label>
          Anything else the agent should know?
          <textarea
            rows={3}
            maxLength={MAX_REJECTION_REASON}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            aria-describedby={`${id}-count`}
            data-testid="reject-reason"
          />
        </label>
        <p id={`${id}-count`} className={ui.hint}>
          {reason.length} of {MAX_REJECTION_REASON} characters
        </p>
        <div className={dialog.actions}>
          <Button variant="secondary" onClick={() => onClose(null)} data-testid="reject-cancel">
            Cancel
          </Button>
          <Button type="submit" variant="danger" data-testid="reject-ok">
            Reject
          </Button>
        </div>
      </form>
    </Modal>
  );
}
