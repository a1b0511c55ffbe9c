import { type AgentPlatformSkill, skillPayloads } from "@switchboard/contract";
import { and, desc, eq, isNull } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { findUser } from "../identity/users";
import { applySkill } from "./apply-skill";
import {
  type AnyRecord,
  type RecordOf,
  type RecordType,
  recordTables,
  toRecord,
} from "./projections";

/**
 * What a person does with their own records in the apps (console pages, CLI `record create`).
 * Every change runs through `applySkill`, the same path an approved card takes.
 */

async function run(deps: CoreDeps, userId: string, skill: AgentPlatformSkill, data: unknown) {
  const payload = parseInput(skillPayloads[skill], data, "data");
  const outcome = await deps.db.transaction((tx) =>
    applySkill(tx, userId, skill, payload, deps.clock.now()),
  );
  if (outcome.status === "failed") throw new CoreError("not_found", outcome.error);
  return outcome;
}

export async function createRecord(
  deps: CoreDeps,
  userRef: string,
  type: RecordType,
  data: unknown,
): Promise<AnyRecord> {
  const user = await findUser(deps, userRef);
  const { recordId } = await run(deps, user.id, `create_${type}` as AgentPlatformSkill, data);
  return getOwnRecord(deps, user.id, type, recordId);
}

export async function updateOwnRecord(
  deps: CoreDeps,
  userId: string,
  type: RecordType,
  id: string,
  changes: object,
) {
  await run(deps, userId, `update_${type}` as AgentPlatformSkill, { ...changes, id });
  return getOwnRecord(deps, userId, type, id);
}

export async function completeOwnRecord(
  deps: CoreDeps,
  userId: string,
  type: "task" | "reminder",
  id: string,
) {
  await run(deps, userId, `complete_${type}`, { id });
  return getOwnRecord(deps, userId, type, id);
}

export async function deleteOwnRecord(
  deps: CoreDeps,
  userId: string,
  type: RecordType,
  id: string,
) {
  await run(deps, userId, `delete_${type}` as AgentPlatformSkill, { id });
}

/** Archiving hides a record from agents and the lists without deleting it. */
export async function archiveOwnRecord(
  deps: CoreDeps,
  userId: string,
  type: RecordType,
  id: string,
) {
  const table = recordTables[type];
  const now = deps.clock.now();
  const done = await deps.db.transaction(async (tx) => {
    const archived = await tx
      .update(table)
      .set({ archivedAt: now, updatedAt: now })
      .where(and(eq(table.id, id), eq(table.userId, userId), isNull(table.archivedAt)))
      .returning({ id: table.id });
    await notifyTopics(tx, [userTopic(userId, "records")]);
    return archived;
  });
  if (done.length === 0) throw new CoreError("not_found", `No ${type} ${id} on your account`);
}

export async function getOwnRecord(deps: CoreDeps, userId: string, type: RecordType, id: string) {
  const table = recordTables[type];
  const [row] = await deps.db
    .select()
    .from(table)
    .where(and(eq(table.id, id), eq(table.userId, userId)));
  if (!row) throw new CoreError("not_found", `No ${type} ${id} on your account`);
  return toRecord(type, row);
}

/** A person's non-archived records of one type, newest first, at most `limit` (200 by default). */
export async function listOwnRecords<T extends RecordType>(
  deps: CoreDeps,
  userId: string,
  type: T,
  limit = 200,
): Promise<RecordOf[T][]> {
  const table: (typeof recordTables)[RecordType] = recordTables[type];
  const rows = await deps.db
    .select()
    .from(table)
    .where(and(eq(table.userId, userId), isNull(table.archivedAt)))
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(limit);
  return rows.map((row) => toRecord(type, row));
}
