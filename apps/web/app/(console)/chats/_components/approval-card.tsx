"use client";

import {
  type AgentAction,
  MAX_PAYLOAD_BYTES,
  type PersonChatMessage,
  skillRecordType,
} from "@switchboard/contract";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { shownError } from "~/components/errors";
import { formatTime } from "~/components/format";
import { editableFields, SkillForm } from "~/components/skill-form";
import { useTRPC } from "~/trpc/client";

const skillLabels: Record<string, string> = {
  create: "Create",
  update: "Change",
  complete: "Complete",
  delete: "Delete",
};

/** "Create task", "Complete reminder"; a custom kind as it is. */
function whatItDoes(action: AgentAction): string {
  if (!action.skill) return action.kind;
  const [verb, type] = action.skill.split("_") as [string, string];
  return `${skillLabels[verb] ?? verb} ${type}`;
}

/**
 * An agent's proposal as the person decides it: what it would do, with Approve, Edit (a form
 * for a platform skill's payload, a JSON editor for a custom kind; both checked before they are
 * sent) and Reject while it is pending; afterwards its state and, for a skill, what ran.
 */
export function ApprovalCard({
  message,
  action,
}: {
  message: PersonChatMessage;
  action: AgentAction;
}) {
  const trpc = useTRPC();
  const [editing, setEditing] = useState(false);
  const decide = useMutation(
    trpc.chats.decide.mutationOptions({ onSuccess: () => setEditing(false) }),
  );
  const error = shownError(decide.error);
  const pending = action.state === "pending" && Date.parse(action.expiresAt) > Date.now();
  const payload = action.editedPayload ?? action.payload;
  const approve = (editedPayload?: unknown) =>
    decide.mutate({
      chat: action.conversationId,
      actionId: action.id,
      approve: true,
      editedPayload,
    });
  const canEdit = action.skill ? editableFields(action.skill).length > 0 : true;

  return (
    <li
      className={`approval-card state-${action.state}`}
      data-testid="approval-card"
      data-message-id={message.id}
      data-action-id={action.id}
    >
      <div className="approval-head">
        <span className="approval-kind">{whatItDoes(action)}</span>
        <span className={`badge ${stateBadge[action.state]}`} data-testid="card-state">
          {action.state}
        </span>
      </div>
      <h3 data-testid="card-title">{action.title}</h3>
      {action.description && <p className="muted">{action.description}</p>}
      {!editing && <PayloadView payload={payload} edited={action.editedPayload !== null} />}

      {pending && editing && action.skill && (
        <SkillForm
          skill={action.skill}
          initial={action.payload}
          submitLabel="Approve with changes"
          pending={decide.isPending}
          serverError={error?.message}
          onSubmit={approve}
          testId="card-edit-form"
        >
          <button type="button" className="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </SkillForm>
      )}
      {pending && editing && !action.skill && (
        <JsonEditor
          initial={action.payload}
          pending={decide.isPending}
          serverError={error?.message}
          onSubmit={approve}
          onCancel={() => setEditing(false)}
        />
      )}
      {pending && !editing && (
        <div className="row">
          <button
            type="button"
            disabled={decide.isPending}
            onClick={() => approve()}
            data-testid="card-approve"
          >
            Approve
          </button>
          {canEdit && (
            <button
              type="button"
              className="secondary"
              disabled={decide.isPending}
              onClick={() => setEditing(true)}
              data-testid="card-edit"
            >
              Edit
            </button>
          )}
          <button
            type="button"
            className="danger"
            disabled={decide.isPending}
            onClick={() =>
              decide.mutate({ chat: action.conversationId, actionId: action.id, approve: false })
            }
            data-testid="card-reject"
          >
            Reject
          </button>
        </div>
      )}
      {!editing && error && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
      <p className="hint">
        {action.state === "pending"
          ? `Expires ${formatTime(action.expiresAt)}`
          : action.resolvedAt
            ? `${capitalized(action.state)} ${formatTime(action.resolvedAt)}`
            : null}
      </p>
      <Execution action={action} />
    </li>
  );
}

const stateBadge: Record<AgentAction["state"], string> = {
  pending: "",
  approved: "ok",
  rejected: "off",
  expired: "warn",
};

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function Execution({ action }: { action: AgentAction }) {
  const execution = action.execution;
  if (!execution || !action.skill) return null;
  if (execution.status === "failed")
    return (
      <p className="form-error" data-testid="card-execution">
        Not done: {execution.error}
      </p>
    );
  const type = skillRecordType(action.skill);
  return (
    <p className="success" data-testid="card-execution">
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

function PayloadView({ payload, edited }: { payload: Record<string, unknown>; edited: boolean }) {
  const entries = Object.entries(payload).filter(([key]) => key !== "id");
  if (entries.length === 0) return null;
  return (
    <dl className="payload" data-testid="card-payload">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
      {edited && <p className="hint">Approved with your changes.</p>}
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
      setProblem("The payload must be a JSON object");
      return;
    }
    if (new TextEncoder().encode(JSON.stringify(parsed)).length > MAX_PAYLOAD_BYTES) {
      setProblem(`The payload must be at most ${MAX_PAYLOAD_BYTES / 1024} KB`);
      return;
    }
    setProblem(null);
    onSubmit(parsed as Record<string, unknown>);
  };
  return (
    <div className="stack">
      <label>
        Payload (JSON)
        <textarea
          className="mono"
          rows={8}
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-invalid={problem ? true : undefined}
          data-testid="card-json"
        />
      </label>
      {(problem ?? serverError) && (
        <p className="form-error" role="alert" data-testid="card-json-error">
          {problem ?? serverError}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={pending} onClick={submit} data-testid="card-json-submit">
          Approve with changes
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
