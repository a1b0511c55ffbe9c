"use client";

import {
  type ActionDecision,
  type AgentAction,
  MAX_PAYLOAD_BYTES,
  type PersonChatMessage,
  type RejectionInput,
  skillFields,
  skillRecordType,
} from "@switchboard/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, type RefObject, useEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { shownError } from "~/components/errors";
import { formatClock, formatRelative, formatWhen, localDayKey } from "~/components/format";
import {
  type CardTarget,
  editChanges,
  kindWords,
  rejectionWords,
  skillWords,
  type ValueTree,
  valueTree,
  type WordRow,
} from "~/components/proposal-words";
import { editableFields, SkillForm } from "~/components/skill-form";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import styles from "./approval-card.module.css";
import { RejectDialog } from "./reject-dialog";

/**
 * An agent's proposal as the person decides it, in words: what kind of thing it does, one
 * summary line, the details as rows (a change card shows each field now → proposed, against the
 * record as it is now), when it expires. Approve, Edit (a form prefilled with everything the
 * proposal carries, or a JSON editor for a custom kind; both checked before they are sent) and
 * Reject (which asks, optionally, why) while it is pending; afterwards its state, what an edit
 * changed, why it was rejected, and what ran. A decision refused because the card was decided or
 * expired elsewhere (another tab, the CLI, the timer) reads the card again, and it shows how it
 * really ended, never PENDING beside an error. `from` heads the card outside its chat (whose
 * agent it is, the way to the chat).
 */
export function ApprovalCard({
  message,
  action,
  target,
  from,
}: {
  message: Pick<PersonChatMessage, "id" | "decision">;
  action: AgentAction;
  target?: CardTarget | null;
  from?: ReactNode;
}) {
  useReaderTimes();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const decide = useMutation(
    trpc.chats.decide.mutationOptions({
      onSuccess: () => setEditing(false),
      // Decided or expired elsewhere: read every view of it again before the error is shown
      // (the mutation stays pending meanwhile), so the card says how it ended instead.
      onError: async (failure) => {
        if (!decidedElsewhere(failure)) return;
        setEditing(false);
        await queryClient.invalidateQueries(trpc.chats.pathFilter());
      },
    }),
  );
  const stale = decidedElsewhere(decide.error) && action.state !== "pending";
  const error = stale ? null : shownError(decide.error);
  const pending = action.state === "pending" && Date.parse(action.expiresAt) > Date.now();
  const payload = action.editedPayload ?? action.payload;
  const anchor = useLinkedCard(message.id);
  const focus = useCardFocus(anchor, action, decide.isError);
  const approve = (editedPayload?: unknown) => {
    focus.afterDecision();
    decide.mutate({
      chat: action.conversationId,
      actionId: action.id,
      approve: true,
      editedPayload,
    });
  };
  const reject = (rejection: RejectionInput | null) => {
    // Close first (focus back on Reject, inside the card), then decide.
    flushSync(() => setRejecting(false));
    if (!rejection) return;
    focus.afterDecision();
    decide.mutate({
      chat: action.conversationId,
      actionId: action.id,
      approve: false,
      ...rejection,
    });
  };
  const startEditing = () => {
    focus.next("form");
    setEditing(true);
  };
  const stopEditing = () => {
    focus.next("edit");
    setEditing(false);
  };
  const canEdit = action.skill ? editableFields(action.skill).length > 0 : true;
  const words = action.skill ? skillWords(action.skill, payload, target) : null;
  const headingId = `card-${action.id}-title`;

  return (
    <li
      id={`card-${message.id}`}
      ref={anchor}
      tabIndex={-1}
      className={`${styles.card} ${styles[action.state] ?? ""}`}
      data-testid="approval-card"
      data-message-id={message.id}
      data-action-id={action.id}
      aria-labelledby={headingId}
    >
      {from}
      <div className={styles.head}>
        <span data-testid="card-kind">{words?.kind ?? kindWords(action)}</span>
        <Badge tone={stateBadge[action.state]} data-testid="card-state">
          {action.state}
        </Badge>
      </div>
      <h3 id={headingId} data-testid="card-title">
        {action.title}
      </h3>
      {words && (
        <p className={styles.summary} data-testid="card-summary">
          {words.summary}
        </p>
      )}
      {action.description && (
        <p className={`${ui.muted} ${styles.description}`}>{action.description}</p>
      )}
      {!editing &&
        (words ? (
          <WordRows rows={words.rows} testId="card-payload" />
        ) : (
          <ValueRows tree={valueTree(payload)} testId="card-payload" />
        ))}
      {!editing && action.editedPayload && (
        <div className={styles.changes} data-testid="card-changes">
          <p className={ui.hint}>Approved with your changes:</p>
          <WordRows rows={editChanges(action.skill, action.payload, action.editedPayload)} />
        </div>
      )}

      {pending && editing && action.skill && (
        <SkillForm
          skill={action.skill}
          initial={editInitial(action)}
          submitLabel="Approve with changes"
          pending={decide.isPending}
          serverError={error?.message}
          onSubmit={approve}
          testId="card-edit-form"
        >
          <Button variant="secondary" onClick={stopEditing}>
            Cancel
          </Button>
        </SkillForm>
      )}
      {pending && editing && !action.skill && (
        <JsonEditor
          initial={action.payload}
          pending={decide.isPending}
          serverError={error?.message}
          onSubmit={approve}
          onCancel={stopEditing}
        />
      )}
      {pending && !editing && (
        <div className={ui.row}>
          <Button
            disabled={decide.isPending}
            onClick={() => approve()}
            aria-describedby={headingId}
            data-testid="card-approve"
          >
            Approve
          </Button>
          {canEdit && (
            <Button
              variant="secondary"
              disabled={decide.isPending}
              onClick={startEditing}
              aria-describedby={headingId}
              data-testid="card-edit"
            >
              Edit
            </Button>
          )}
          <Button
            variant="danger"
            disabled={decide.isPending}
            onClick={() => setRejecting(true)}
            aria-describedby={headingId}
            aria-haspopup="dialog"
            data-testid="card-reject"
          >
            Reject
          </Button>
        </div>
      )}
      {pending && rejecting && <RejectDialog title={action.title} onClose={reject} />}
      {!editing && error && (
        <p className={ui.formError} role="alert">
          {error.message}
        </p>
      )}
      {stale && (
        <p className={ui.hint} role="status" data-testid="card-stale">
          {action.state === "expired"
            ? "It expired before your answer arrived."
            : "It was decided elsewhere before your answer arrived."}
        </p>
      )}
      <div className={styles.outcome} tabIndex={-1} data-testid="card-outcome">
        <CardTime action={action} decision={message.decision} />
        <Rejection action={action} />
        <Execution action={action} />
      </div>
    </li>
  );
}

/** The card was decided or expired before this decision arrived (the server's `conflict`). */
function decidedElsewhere(failure: unknown): boolean {
  return (failure as { data?: { code?: string } | null } | null)?.data?.code === "conflict";
}

/**
 * A record's "from a card" link lands on the chat with `#card-<message id>`: that card scrolls
 * into view and takes focus once it has rendered.
 */
function useLinkedCard(messageId: string) {
  const anchor = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (window.location.hash !== `#card-${messageId}` || !anchor.current) return;
    anchor.current.scrollIntoView({ block: "center" });
    anchor.current.focus({ preventScroll: true });
  }, [messageId]);
  return anchor;
}

type FocusTarget = "form" | "edit" | "outcome";

/**
 * Where focus goes once the card has re-rendered, so it never falls to the page: into the edit
 * form when it opens, back to Edit when it closes, and after a decision made here to its
 * outcome (the link to what ran, else the line saying what happened). While the decision is on
 * its way the card itself holds focus, as its buttons go. A decision that fails leaves focus on
 * the card with the error; a person who moved on meanwhile keeps their focus.
 */
function useCardFocus(card: RefObject<HTMLLIElement | null>, action: AgentAction, failed: boolean) {
  const [target, setTarget] = useState<FocusTarget | null>(null);
  const decided = action.state !== "pending";
  useEffect(() => {
    const element = card.current;
    if (!target || !element) return;
    if (target === "outcome" && !decided && !failed) return;
    const active = document.activeElement;
    if (active && active !== document.body && !element.contains(active)) {
      setTarget(null);
      return;
    }
    const into = (selector: string) => element.querySelector<HTMLElement>(selector);
    const next =
      target === "form"
        ? into("form input, form textarea, form select, textarea")
        : target === "edit"
          ? into("[data-testid='card-edit']")
          : failed
            ? element
            : (into("[data-testid='card-record-link']") ?? into("[data-testid='card-outcome']"));
    next?.focus();
    setTarget(null);
  }, [card, target, decided, failed]);
  return {
    next: setTarget,
    afterDecision: () => {
      card.current?.focus({ preventScroll: true });
      setTarget("outcome");
    },
  };
}

/**
 * What the edit form starts from: everything the proposal carries. A skill that takes a
 * description gets the card's own description when its payload has none, so the person edits
 * what they were shown.
 */
function editInitial(action: AgentAction): Record<string, unknown> {
  const skill = action.skill;
  const takesDescription =
    skill !== null && skillFields[skill].includes("description") && skill.startsWith("create_");
  return takesDescription && action.payload.description === undefined && action.description
    ? { ...action.payload, description: action.description }
    : action.payload;
}

/**
 * "Expires in 23 h" while pending (the exact time on hover); afterwards who decided, when, from
 * where and how much they changed: "Approved by you at 10:02 with 2 changes".
 */
function CardTime({ action, decision }: { action: AgentAction; decision: ActionDecision | null }) {
  if (action.state === "pending")
    return (
      <p className={ui.hint} data-testid="card-expiry">
        {/* How long is left moves on between the server's render and the browser's. */}
        <time
          dateTime={action.expiresAt}
          title={formatWhen(action.expiresAt)}
          suppressHydrationWarning
        >
          {Date.parse(action.expiresAt) > Date.now()
            ? `Expires ${formatRelative(action.expiresAt)}`
            : "Expired"}
        </time>
      </p>
    );
  if (decision?.via)
    return (
      <p className={ui.hint} data-testid="card-decision">
        <time dateTime={decision.at} title={formatWhen(decision.at)}>
          {decisionWords(decision)}
        </time>
      </p>
    );
  if (!action.resolvedAt) return null;
  return (
    <p className={ui.hint} data-testid="card-expiry">
      {capitalized(action.state)}{" "}
      <time dateTime={action.resolvedAt}>{formatWhen(action.resolvedAt)}</time>
    </p>
  );
}

/** "at 10:02" today, "on Sat 29 Nov, 10:02" another day. */
function atTime(iso: string, now = new Date()): string {
  return localDayKey(iso) === localDayKey(now.toISOString())
    ? `at ${formatClock(iso)}`
    : `on ${formatWhen(iso, now)}`;
}

/** A decided card's one line: who, when, from where, how much they changed. */
export function decisionWords(decision: ActionDecision, now = new Date()): string {
  const at = atTime(decision.at, now);
  const changes =
    decision.changes > 0
      ? ` with ${decision.changes} ${decision.changes === 1 ? "change" : "changes"}`
      : "";
  const where = decision.via === "cli" ? " from the CLI" : "";
  switch (decision.via) {
    case "auto_execute":
      return `Ran automatically ${at}`;
    case "expiry":
      return `Expired ${at}`;
    case "contact_removed":
      return `Rejected ${at} when you removed the agent`;
    default:
      return decision.outcome === "approved"
        ? `Approved by you${where} ${at}${changes}`
        : `Rejected by you${where} ${at}`;
  }
}

const stateBadge: Record<AgentAction["state"], BadgeTone> = {
  pending: "neutral",
  approved: "ok",
  rejected: "off",
  expired: "warn",
};

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** What the person told the agent when they rejected it. */
function Rejection({ action }: { action: AgentAction }) {
  const words = rejectionWords(action.rejection);
  if (!words) return null;
  return (
    <p className={`${ui.hint} ${styles.reason}`} data-testid="card-rejection">
      Your reason: {words}
    </p>
  );
}

function Execution({ action }: { action: AgentAction }) {
  const execution = action.execution;
  if (!execution || !action.skill) return null;
  if (execution.status === "failed")
    return (
      <p className={ui.formError} data-testid="card-execution">
        Not done: {execution.error}
      </p>
    );
  const type = skillRecordType(action.skill);
  return (
    <p className={ui.success} data-testid="card-execution">
      {execution.auto ? "Done automatically" : "Done"}:{" "}
      {action.skill.startsWith("delete") ? (
        `${type} deleted`
      ) : (
        <Link href={`/records/${type}s#${execution.recordId}`} data-testid="card-record-link">
          view the {type}
        </Link>
      )}
    </p>
  );
}

/** Labelled rows; a row the card would change shows "now → proposed". */
function WordRows({ rows, testId }: { rows: WordRow[]; testId?: string }) {
  if (rows.length === 0) return null;
  return (
    <dl className={ui.payload} data-testid={testId}>
      {rows.map((row) => (
        <div key={row.label}>
          <dt>{row.label}</dt>
          <dd>
            {row.before !== undefined && row.before !== row.value ? (
              <>
                <del>{row.before}</del> <span aria-hidden="true">→</span>
                <span className={ui.visuallyHidden}>changes to</span> <ins>{row.value}</ins>
              </>
            ) : (
              row.value
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A custom payload, nested values as nested rows (never JSON). */
function ValueRows({ tree, testId }: { tree: ValueTree; testId?: string }) {
  if (tree.kind === "text")
    return testId ? (
      <p className={ui.payload} data-testid={testId}>
        {tree.text}
      </p>
    ) : (
      tree.text
    );
  return (
    <dl className={ui.payload} data-testid={testId}>
      {tree.rows.map((row, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: labels of list items repeat across levels.
          key={`${row.label}-${i}`}
          className={row.value.kind === "rows" ? ui.nested : undefined}
        >
          <dt>{row.label}</dt>
          <dd>
            <ValueRows tree={row.value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Edits a custom kind's payload as JSON: an object of at most 16 KB, checked before sending. */
function JsonEditor({
  initial,
  pending,
  serverError,
  onSubmit,
  onCancel,
}: {
  initial: Record<string, unknown>;
  pending: boolean;
  serverError?: string;
  onSubmit: (payload: Record<string, unknown>) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState(() => JSON.stringify(initial, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      setProblem(`Not valid JSON: ${(e as Error).message}`);
      return;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      setProblem("The details must be one JSON object, in { }");
      return;
    }
    if (new TextEncoder().encode(JSON.stringify(parsed)).length > MAX_PAYLOAD_BYTES) {
      setProblem("These details are too long to send: shorten them");
      return;
    }
    setProblem(null);
    onSubmit(parsed as Record<string, unknown>);
  };
  return (
    <div className={ui.stack}>
      <label>
        The details, as the agent wrote them (JSON)
        <textarea
          className={ui.mono}
          rows={8}
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-invalid={problem ? true : undefined}
          data-testid="card-json"
        />
      </label>
      {(problem ?? serverError) && (
        <p className={ui.formError} role="alert" data-testid="card-json-error">
          {problem ?? serverError}
        </p>
      )}
      <div className={ui.row}>
        <Button disabled={pending} onClick={submit} data-testid="card-json-submit">
          Approve with changes
        </Button>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </div>
  );
}
