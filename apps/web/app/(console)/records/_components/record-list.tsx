"use client";

import type {
  AgentPlatformSkill,
  EventRecord,
  NoteRecord,
  RecordCard,
  ReminderRecord,
  TaskRecord,
} from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, type ReactNode, useEffect, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { SkillForm } from "~/components/skill-form";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardHead } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { RelativeTime } from "~/components/ui/time";
import { useUndo } from "~/components/ui/undo";
import { consoleMutation, useTRPC } from "~/trpc/client";
import styles from "../records.module.css";
import type { RecordType } from "./sections";

type AnyRecord = TaskRecord | ReminderRecord | EventRecord | NoteRecord;

export function RecordList({
  type,
  title,
  newButton,
}: {
  type: RecordType;
  title: string;
  newButton: ReactNode;
}) {
  const trpc = useTRPC();
  const records = useQuery(trpc.records.list.queryOptions({ type }));
  const recordIds = records.data?.map((record) => record.id) ?? [];
  const cards = useQuery(
    trpc.records.cards.queryOptions({ recordIds }, { enabled: recordIds.length > 0 }),
  );
  const cardOf = new Map(cards.data?.map((card) => [card.recordId, card]));
  const target = useHash();
  // A record being deleted or archived is gone from the list while its undo waits.
  const { hides } = useUndo();
  const shown = records.data?.filter((record) => !hides(`record:${record.id}`));
  return (
    <Card aria-labelledby="records-heading">
      <CardHead>
        <h2 id="records-heading">{title}</h2>
        {newButton}
      </CardHead>
      {records.isPending && <Skeleton label={title.toLowerCase()} />}
      {records.error && <p className={ui.formError}>{records.error.message}</p>}
      {shown?.length === 0 && (
        <EmptyState data-testid="records-empty">Nothing here yet.</EmptyState>
      )}
      <ul className={styles.records} data-testid="records">
        {shown?.map((record) => (
          <RecordRow
            key={record.id}
            type={type}
            record={record}
            card={cardOf.get(record.id)}
            highlighted={target === record.id}
          />
        ))}
      </ul>
    </Card>
  );
}

/** The URL's #fragment (a card's "view the task" link points at the record). */
function useHash(): string {
  const [hash, setHash] = useState("");
  useEffect(() => {
    const read = () => setHash(window.location.hash.slice(1));
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, []);
  return hash;
}

function RecordRow({
  type,
  record,
  card,
  highlighted,
}: {
  type: RecordType;
  record: AnyRecord;
  card: RecordCard | undefined;
  highlighted: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { offer } = useUndo();
  const [editing, setEditing] = useState(false);
  const update = useMutation(
    trpc.records.update.mutationOptions({ onSuccess: () => setEditing(false) }),
  );
  const complete = useMutation(trpc.records.complete.mutationOptions());
  const error = shownError(complete.error);
  const done =
    ("status" in record && record.status === "completed") ||
    ("isCompleted" in record && record.isCompleted);
  const busy = complete.isPending;
  const name = `“${record.title ?? "Untitled note"}”`;
  /** Delete and Archive wait for Undo (the console has no way back from either once sent). */
  const later = (done: string, removal: "archive" | "delete") =>
    offer({
      message: `${done} ${name}.`,
      failure: `Could not ${removal} ${name}`,
      hides: `record:${record.id}`,
      call: consoleMutation("records", removal, { type, id: record.id }),
      after: () => queryClient.invalidateQueries(trpc.records.pathFilter()),
      focusAfterUndo: () =>
        document.querySelector(`[data-record-id="${record.id}"] [data-testid="record-edit"]`),
    });

  return (
    <li
      id={record.id}
      className={[styles.record, highlighted && styles.highlighted, done && styles.done]
        .filter(Boolean)
        .join(" ")}
      data-testid="record"
      data-record-id={record.id}
    >
      {editing ? (
        <SkillForm
          skill={`update_${type}` as AgentPlatformSkill}
          initial={record as unknown as Record<string, unknown>}
          submitLabel="Save"
          pending={update.isPending}
          serverError={shownError(update.error)?.message}
          onSubmit={({ id, ...changes }) => update.mutate({ type, id: String(id), changes })}
          testId="record-edit-form"
        >
          <Button variant="secondary" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </SkillForm>
      ) : (
        <>
          <div className={styles.main}>
            <strong data-testid="record-title">{record.title ?? "Untitled note"}</strong>
            {done && <Badge tone="ok">done</Badge>}
            <RecordDetails record={record} />
            {card && <FromCard card={card} />}
          </div>
          <div className={`${ui.row} ${styles.actions}`}>
            {(type === "task" || type === "reminder") && !done && (
              <Button
                variant="secondary"
                small
                disabled={busy}
                onClick={() => complete.mutate({ type, id: record.id })}
                data-testid="record-complete"
              >
                Complete
              </Button>
            )}
            <Button
              variant="secondary"
              small
              onClick={() => setEditing(true)}
              data-testid="record-edit"
            >
              Edit
            </Button>
            <Button
              variant="secondary"
              small
              disabled={busy}
              onClick={() => later("Archived", "archive")}
              data-testid="record-archive"
            >
              Archive
            </Button>
            <Button
              variant="danger"
              small
              disabled={busy}
              onClick={() => later("Deleted", "delete")}
              data-testid="record-delete"
            >
              Delete
            </Button>
          </div>
          <FormError message={error?.message} />
        </>
      )}
    </li>
  );
}

/** "From a card by Concierge": the approval card (its chat message) that created the record. */
function FromCard({ card }: { card: RecordCard }) {
  const agent = card.agent.displayName ?? card.agent.num;
  return (
    <span className={`${ui.hint} ${styles.meta}`}>
      <Link
        href={`/chats/${card.conversationId}${card.cardMessageId ? `#card-${card.cardMessageId}` : ""}`}
        data-testid="record-card-link"
      >
        {card.auto ? `Created automatically by ${agent}` : `From a card by ${agent}`}
      </Link>
    </span>
  );
}

function RecordDetails({ record }: { record: AnyRecord }) {
  const parts: ReactNode[] = [];
  if ("dueDate" in record && record.dueDate)
    parts.push(<>Due {<RelativeTime iso={record.dueDate} />}</>);
  if ("priority" in record && record.priority) parts.push(`${record.priority} priority`);
  if ("reminderTime" in record) parts.push(<>At {<RelativeTime iso={record.reminderTime} />}</>);
  if ("startTime" in record)
    parts.push(
      <>
        <RelativeTime iso={record.startTime} />
        {record.endTime && <> – {<RelativeTime iso={record.endTime} />}</>}
      </>,
    );
  if ("location" in record && record.location) parts.push(record.location);
  const text =
    "description" in record ? record.description : "content" in record ? record.content : null;
  return (
    <>
      {parts.length > 0 && (
        <span className={`${ui.hint} ${styles.meta}`}>
          {parts.map((part, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one record, in a fixed order.
            <Fragment key={i}>
              {i > 0 && " · "}
              {part}
            </Fragment>
          ))}
        </span>
      )}
      {text && <p className={styles.text}>{text}</p>}
    </>
  );
}
