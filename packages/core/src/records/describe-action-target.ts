import { type AgentAction, skillRecordType } from "@switchboard/contract";
import { and, eq, inArray } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { type AnyRecord, type RecordType, recordTables, toRecord } from "./projections";

/** The record a card's `update_*`, `complete_*` or `delete_*` skill names, as it is now. */
export interface ActionTarget {
  actionId: string;
  type: RecordType;
  recordId: string;
  /** Null when the person has no such record (never had, or deleted since). */
  record: AnyRecord | null;
  archived: boolean;
}

/**
 * What each card in a person's chat would change, read now from their own records: the card
 * then says "Change task “Buy milk” (due Fri 10:00)" instead of a bare id. Only the person's own
 * records are read (one query per record type), so a card cannot reveal anyone else's.
 */
export async function describeActionTargets(
  deps: CoreDeps,
  userId: string,
  actions: readonly Pick<AgentAction, "id" | "skill" | "payload">[],
): Promise<ActionTarget[]> {
  const wanted = actions.flatMap((action) => {
    const recordId = action.payload.id;
    if (!action.skill || action.skill.startsWith("create_") || typeof recordId !== "string")
      return [];
    return [{ actionId: action.id, type: skillRecordType(action.skill), recordId }];
  });
  const found = new Map<string, { record: AnyRecord; archived: boolean }>();
  for (const type of new Set(wanted.map((w) => w.type))) {
    const table = recordTables[type];
    const ids = wanted.filter((w) => w.type === type).map((w) => w.recordId);
    const rows = await deps.db
      .select()
      .from(table)
      .where(and(eq(table.userId, userId), inArray(table.id, ids)));
    for (const row of rows)
      found.set(`${type}:${row.id}`, {
        record: toRecord(type, row),
        archived: row.archivedAt !== null,
      });
  }
  return wanted.map((w) => {
    const hit = found.get(`${w.type}:${w.recordId}`);
    return { ...w, record: hit?.record ?? null, archived: hit?.archived ?? false };
  });
}
