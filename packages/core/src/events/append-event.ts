import type { AgentEvent } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { newId } from "../ids";
import { notifyTopics } from "./notifier";

const { events } = schema;

export interface NewEvent {
  agentId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** Any key works as long as every process uses the same one. */
const EVENT_LOG_LOCK = 0x5b0e7e;

export function toAgentEvent(row: typeof events.$inferSelect): AgentEvent {
  return {
    id: row.id,
    seq: row.seq,
    type: row.type,
    ts: row.ts.toISOString(),
    agentId: row.agentId,
    payload: row.payload,
  };
}

/**
 * The one append path of the event log, inside the caller's transaction so an event commits
 * with the change that causes it. Appends are serialised by a transaction-level advisory lock
 * held to commit: seq is drawn under the lock, so seq order is commit order and readers of
 * "seq > cursor" never skip an event that commits late. Call it as the transaction's last
 * write to keep the lock short.
 */
export async function appendEvents(
  tx: Tx,
  now: Date,
  newEvents: NewEvent[],
): Promise<AgentEvent[]> {
  if (newEvents.length === 0) return [];
  await tx.execute(sql`select pg_advisory_xact_lock(${EVENT_LOG_LOCK})`);
  const rows = await tx
    .insert(events)
    .values(
      newEvents.map((event) => ({
        id: newId("evt"),
        agentId: event.agentId,
        type: event.type,
        ts: now,
        payload: event.payload,
      })),
    )
    .returning();
  await notifyTopics(
    tx,
    newEvents.map((event) => `agent:${event.agentId}` as const),
  );
  return rows.sort((a, b) => a.seq - b.seq).map(toAgentEvent);
}
