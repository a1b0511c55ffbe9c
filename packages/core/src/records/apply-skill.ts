import { type AgentPlatformSkill, type SkillPayload, skillRecordType } from "@switchboard/contract";
import type { Tx } from "@switchboard/db";
import { and, eq, isNull } from "drizzle-orm";
import { notifyTopics } from "../events/notifier";
import { newId } from "../ids";
import { syncDueTimer } from "./due-timers";
import { type RecordType, recordPrefixes, recordTables } from "./projections";

export type SkillOutcome =
  | { status: "succeeded"; recordType: RecordType; recordId: string }
  | { status: "failed"; recordType: RecordType; error: string };

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
  payload: SkillPayload<S>,
  now: Date,
): Promise<SkillOutcome> {
  const type = skillRecordType(skill);
  const table = recordTables[type];
  const verb = skill.split("_")[0] as "create" | "update" | "complete" | "delete";
  const fields = payload as Record<string, unknown>;

  if (verb === "create") {
    const id = newId(recordPrefixes[type]);
    await tx
      .insert(table)
      .values({ ...dates(fields), id, userId, createdAt: now, updatedAt: now } as never);
    await syncDueTimer(tx, type, id);
    await notifyTopics(tx, [`user:${userId}`]);
    return { status: "succeeded", recordType: type, recordId: id };
  }

  const { id, ...changes } = fields as { id: string } & Record<string, unknown>;
  const mine = and(eq(table.id, id), eq(table.userId, userId), isNull(table.archivedAt));
  let found: { id: string }[];
  if (verb === "delete") {
    found = await tx.delete(table).where(mine).returning({ id: table.id });
  } else {
    const set =
      verb === "complete"
        ? type === "task"
          ? { status: "completed", completedAt: now }
          : { isCompleted: true }
        : dates(changes);
    found = await tx
      .update(table)
      .set({ ...set, updatedAt: now } as never)
      .where(mine)
      .returning({ id: table.id });
  }
  if (found.length === 0)
    return {
      status: "failed",
      recordType: type,
      error: `No ${type} ${id} on the approver's account`,
    };
  await syncDueTimer(tx, type, id);
  // The person's open record pages and chats re-read.
  await notifyTopics(tx, [`user:${userId}`]);
  return { status: "succeeded", recordType: type, recordId: id };
}

const dateFields = new Set(["dueDate", "reminderTime", "startTime", "endTime"]);

/** Payload dates are ISO strings; columns take Dates (null stays null: it clears). */
function dates(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [
        key,
        dateFields.has(key) && typeof value === "string" ? new Date(value) : value,
      ]),
  );
}
