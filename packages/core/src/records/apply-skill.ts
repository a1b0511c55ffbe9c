import {
  type AgentPlatformSkill,
  type RecordType,
  type SkillPayload,
  skillRecordType,
} from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, isNull } from "drizzle-orm";
import { notifyTopics, userTopic } from "../events/notifier";
import { newId } from "../ids";
import { syncDueTimer } from "./due-timers";
import { recordPrefixes, recordTables } from "./projections";

const { tasks, reminders, calendarEvents, notes } = schema;

export type SkillOutcome =
  | { status: "succeeded"; recordType: RecordType; recordId: string }
  | { status: "failed"; recordType: RecordType; error: string };

/** Each skill's payload by its name, so one lookup types the payload for its writer. */
type SkillPayloads = { [S in AgentPlatformSkill]: SkillPayload<S> };

/** What a skill changes: the id of the record it wrote, or null when no record of the account matched. */
type Writer<S extends AgentPlatformSkill> = (
  tx: Tx,
  userId: string,
  payload: SkillPayloads[S],
  now: Date,
) => Promise<string | null>;

/**
 * Runs one platform skill on `userId`'s own records, inside the caller's transaction. This is the
 * only code path that changes a person's records: an approved card, an auto-executed proposal,
 * the CLI and the console all come through here. A record that is not on the account (or is
 * archived) fails the skill with a one-line error and changes nothing.
 */
export async function applySkill<S extends AgentPlatformSkill>(
  tx: Tx,
  userId: string,
  skill: S,
  payload: SkillPayloads[S],
  now: Date,
): Promise<SkillOutcome> {
  const type = skillRecordType(skill);
  const writer: Writer<S> = writers[skill];
  const id = await writer(tx, userId, payload, now);
  if (id === null) {
    const named = "id" in payload ? payload.id : "";
    return {
      status: "failed",
      recordType: type,
      error: `No ${type} ${named} on the approver's account`,
    };
  }
  await syncDueTimer(tx, type, id);
  // The person's open record pages and chats re-read.
  await notifyTopics(tx, [userTopic(userId, "records")]);
  return { status: "succeeded", recordType: type, recordId: id };
}

/** Payload dates are ISO strings; columns take Dates (null clears, undefined leaves alone). */
function toDate(value: string): Date;
function toDate(value: string | undefined): Date | undefined;
function toDate(value: string | null | undefined): Date | null | undefined;
function toDate(value: string | null | undefined): Date | null | undefined {
  return typeof value === "string" ? new Date(value) : value;
}

/** A new record's id and owner fields. */
function fresh(type: RecordType, userId: string, now: Date) {
  return { id: newId(recordPrefixes[type]), userId, createdAt: now, updatedAt: now };
}

/** The rows of `userId` named `id` that are not archived. */
function mine(table: (typeof recordTables)[RecordType], userId: string, id: string) {
  return and(eq(table.id, id), eq(table.userId, userId), isNull(table.archivedAt));
}

const first = (rows: { id: string }[]) => rows[0]?.id ?? null;

const remove =
  (type: RecordType): Writer<AgentPlatformSkill> =>
  async (tx, userId, payload) => {
    const table = recordTables[type];
    if (!("id" in payload)) return null;
    return first(
      await tx
        .delete(table)
        .where(mine(table, userId, payload.id))
        .returning({ id: table.id }),
    );
  };

const writers: { [S in AgentPlatformSkill]: Writer<S> } = {
  create_task: async (tx, userId, { dueDate, ...rest }, now) => {
    const row = { ...fresh("task", userId, now), ...rest, dueDate: toDate(dueDate) };
    return first(await tx.insert(tasks).values(row).returning({ id: tasks.id }));
  },
  create_reminder: async (tx, userId, { reminderTime, ...rest }, now) => {
    const row = { ...fresh("reminder", userId, now), ...rest, reminderTime: toDate(reminderTime) };
    return first(await tx.insert(reminders).values(row).returning({ id: reminders.id }));
  },
  create_event: async (tx, userId, { startTime, endTime, ...rest }, now) => {
    const row = {
      ...fresh("event", userId, now),
      ...rest,
      startTime: toDate(startTime),
      endTime: toDate(endTime),
    };
    return first(await tx.insert(calendarEvents).values(row).returning({ id: calendarEvents.id }));
  },
  create_note: async (tx, userId, payload, now) => {
    const row = { ...fresh("note", userId, now), ...payload };
    return first(await tx.insert(notes).values(row).returning({ id: notes.id }));
  },
  update_task: async (tx, userId, { id, dueDate, ...rest }, now) => {
    const set = { ...rest, dueDate: toDate(dueDate), updatedAt: now };
    return first(
      await tx
        .update(tasks)
        .set(set)
        .where(mine(tasks, userId, id))
        .returning({ id: tasks.id }),
    );
  },
  update_reminder: async (tx, userId, { id, reminderTime, ...rest }, now) => {
    const set = { ...rest, reminderTime: toDate(reminderTime), updatedAt: now };
    return first(
      await tx
        .update(reminders)
        .set(set)
        .where(mine(reminders, userId, id))
        .returning({ id: reminders.id }),
    );
  },
  update_event: async (tx, userId, { id, startTime, endTime, ...rest }, now) => {
    const set = { ...rest, startTime: toDate(startTime), endTime: toDate(endTime), updatedAt: now };
    return first(
      await tx
        .update(calendarEvents)
        .set(set)
        .where(mine(calendarEvents, userId, id))
        .returning({ id: calendarEvents.id }),
    );
  },
  update_note: async (tx, userId, { id, ...rest }, now) =>
    first(
      await tx
        .update(notes)
        .set({ ...rest, updatedAt: now })
        .where(mine(notes, userId, id))
        .returning({ id: notes.id }),
    ),
  complete_task: async (tx, userId, { id }, now) =>
    first(
      await tx
        .update(tasks)
        .set({ status: "completed", completedAt: now, updatedAt: now })
        .where(mine(tasks, userId, id))
        .returning({ id: tasks.id }),
    ),
  complete_reminder: async (tx, userId, { id }, now) =>
    first(
      await tx
        .update(reminders)
        .set({ isCompleted: true, updatedAt: now })
        .where(mine(reminders, userId, id))
        .returning({ id: reminders.id }),
    ),
  delete_task: remove("task"),
  delete_reminder: remove("reminder"),
  delete_event: remove("event"),
  delete_note: remove("note"),
};
