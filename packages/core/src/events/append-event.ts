import type { AgentEvent } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { newId } from "../ids";
import { enqueueJob } from "../jobs/enqueue-job";
import { notifyTopics } from "./notifier";

const { events, webhookDeliveries, webhooks } = schema;

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
  await enqueueWebhookDeliveries(tx, now, rows);
  return rows.sort((a, b) => a.seq - b.seq).map(toAgentEvent);
}

/**
 * For agents with an active webhook: a delivery row and its job per event, committed with the
 * events themselves, so a crash anywhere loses no delivery. One statement for the rows; jobs
 * go to a queue per agent, so its deliveries keep their order and a slow receiver holds up only
 * its own agent.
 */
async function enqueueWebhookDeliveries(
  tx: Tx,
  now: Date,
  rows: (typeof events.$inferSelect)[],
): Promise<void> {
  const agentIds = [...new Set(rows.map((row) => row.agentId))];
  const hooked = await tx
    .select({ agentId: webhooks.agentId })
    .from(webhooks)
    .where(and(inArray(webhooks.agentId, agentIds), eq(webhooks.state, "active")));
  if (hooked.length === 0) return;
  const active = new Set(hooked.map((h) => h.agentId));
  const deliveries = await tx
    .insert(webhookDeliveries)
    .values(
      rows
        .filter((row) => active.has(row.agentId))
        .map((row) => ({
          agentId: row.agentId,
          eventId: row.id,
          eventSeq: row.seq,
          eventType: row.type,
          nextAttemptAt: now,
          createdAt: now,
          updatedAt: now,
        })),
    )
    .returning({ id: webhookDeliveries.id, agentId: webhookDeliveries.agentId });
  for (const delivery of deliveries)
    await enqueueJob(
      tx,
      "webhook_deliver",
      { deliveryId: delivery.id },
      { queue: `webhook:${delivery.agentId}`, jobKey: `webhook:${delivery.id}` },
    );
}
