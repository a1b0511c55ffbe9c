import { eventIssues, type NewAgentEvent } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { newId } from "../ids";
import { metrics } from "../metrics";
import { agentOwnerTopics } from "./agent-control";
import { drainTopics, notifyTopics, type Topic } from "./notifier";

const { events, webhookDeliveries, webhooks } = schema;

/**
 * An event to append: its agent, a type and payload of the event registry, and the person it is
 * about. Their standing with the agent when the event is read decides what the agent sees of it
 * (event-visibility.ts), so the payload is stored whole.
 */
export type NewEvent = NewAgentEvent & { personId?: string | null };

/** Any key works as long as every process uses the same one. */
const EVENT_LOG_LOCK = 0x5b0e7e;

/**
 * What an append answers about each event it wrote: where it is in the log, never its payload
 * (readers see events only through `toVisibleEvent`, with the person's grants at read time).
 */
export interface AppendedEvent {
  id: string;
  seq: number;
  type: string;
  agentId: string;
  ts: string;
}

/**
 * The one append path of the event log, inside the caller's transaction so an event commits
 * with the change that causes it. Appends are serialised by a transaction-level advisory lock
 * held to commit: seq is drawn under the lock, so seq order is commit order and readers of
 * "seq > cursor" never skip an event that commits late. Call it as the transaction's last
 * write to keep the lock short.
 *
 * The readers' wake-ups (`agent:<id>`, the webhook drains, an owner's webhook page) are queued in
 * the transaction, or, given `wakes`, added to it for the caller to issue after its commit
 * (`wakeAfterCommit`: a send's hot path, decision 0077).
 */
export async function appendEvents(
  tx: Tx,
  now: Date,
  newEvents: NewEvent[],
  wakes?: Topic[],
): Promise<AppendedEvent[]> {
  if (newEvents.length === 0) return [];
  for (const event of newEvents) {
    const issues = eventIssues(event);
    if (issues) throw new Error(`Refusing to append a ${event.type} event: ${issues}`);
  }
  await tx.execute(sql`select pg_advisory_xact_lock(${EVENT_LOG_LOCK})`);
  const rows = await tx
    .insert(events)
    .values(
      newEvents.map((event) => ({
        id: newId("evt"),
        agentId: event.agentId,
        personId: event.personId ?? null,
        type: event.type,
        ts: now,
        payload: event.payload,
      })),
    )
    .returning();
  const { drains, held } = await enqueueWebhookDeliveries(tx, now, rows);
  const topics: Topic[] = [
    ...newEvents.map((event): Topic => `agent:${event.agentId}`),
    ...drainTopics(drains),
    // Held events change the owner's webhook page ("waiting"); pending ones wake it when attempted.
    ...(held.length > 0 ? await agentOwnerTopics(tx, held, (agentId) => `webhook:${agentId}`) : []),
  ];
  if (wakes) wakes.push(...topics);
  else await notifyTopics(tx, topics);
  for (const row of rows) metrics.eventsAppended.inc({ type: row.type });
  return rows
    .sort((a, b) => a.seq - b.seq)
    .map((row) => ({
      id: row.id,
      seq: row.seq,
      type: row.type,
      agentId: row.agentId,
      ts: row.ts.toISOString(),
    }));
}

/**
 * For agents with a webhook: a delivery row per event, committed with the events themselves, so
 * a crash anywhere loses no delivery; answers the agents whose drains to wake (their webhook is
 * active), and those whose held rows change their owner's page. One statement for the rows (it finds nothing when no agent has a webhook); one worker
 * at a time drains an agent (decision 0055), so its deliveries keep their order and a slow
 * receiver holds up only its own agent.
 * A webhook that is turned off gets its rows too, held (`dead`, not attempted): "Resume and
 * retry" sends them in seq order, so no event of the disabled period is lost (within the event
 * log's retention, which removes the deliveries of the events it removes). The rows are found
 * by id and by this append's time, so only the log's current partition is read (decision 0047).
 */
async function enqueueWebhookDeliveries(
  tx: Tx,
  now: Date,
  rows: (typeof events.$inferSelect)[],
): Promise<{ drains: string[]; held: string[] }> {
  const at = now.toISOString();
  const deliveries = (await tx.execute(sql`
    insert into ${webhookDeliveries}
      (agent_id, event_id, event_seq, event_type, status, error, next_attempt_at, created_at,
       updated_at)
    select e.agent_id, e.id, e.seq, e.type,
      (case when w.state = 'active' then 'pending' else 'dead' end)::delivery_status,
      case when w.state = 'active' then null else 'webhook ' || w.state::text end,
      case when w.state = 'active' then ${at}::timestamptz end,
      ${at}::timestamptz, ${at}::timestamptz
    from ${events} e join ${webhooks} w on w.agent_id = e.agent_id
    where e.id in ${rows.map((row) => row.id)}
      and e.ts = ${at}::timestamptz
    order by e.seq
    returning agent_id, status
  `)) as unknown as { agent_id: string; status: string }[];
  return {
    drains: deliveries.filter((d) => d.status === "pending").map((d) => d.agent_id),
    held: deliveries.filter((d) => d.status !== "pending").map((d) => d.agent_id),
  };
}
