import type { Sql } from "postgres";
import type { CoreDeps } from "../deps";
import { NOTIFY_CHANNEL, notifyPayloads, type Topic } from "../events/notifier";
import { GroupedStatements } from "./grouped-statements";

/** A delivered attempt, as its settle records it. */
export interface DeliveredAttempt {
  deliveryId: number;
  agentId: string;
  attempt: number;
  httpStatus: number;
  latencyMs: number;
  /** When the attempt was made, ISO. */
  at: string;
  /** The request's headers, as JSON. */
  requestHeaders: string;
  responseExcerpt: string | null;
  /** Who hears of it (the owner's open webhook page). */
  wake: Topic[];
}

/** The most settles one statement carries. */
const MAX_BATCH = 200;

/**
 * Settles delivered attempts in one statement: each delivery succeeded and its webhook healthy
 * again, its owner's pages woken. It commits without waiting for the WAL flush (its own
 * implicit transaction only): a success lost in a database crash sends the event once more,
 * which at-least-once delivery allows. Written for postgres.js directly, one text, prepared.
 */
function settleDelivered(sql: Sql, batch: readonly DeliveredAttempt[]) {
  // Every column goes as a text[] (the driver serialises those; the casts are the statement's).
  const column = (pick: (attempt: DeliveredAttempt) => string | null) => batch.map(pick);
  return sql`
    with async_commit as (select set_config('synchronous_commit', 'off', true)),
    wake as (
      select pg_notify(${NOTIFY_CHANNEL}, p)
      from unnest(${notifyPayloads(batch.flatMap((a) => a.wake))}::text[]) p
    ),
    made as (
      select id::bigint, agent_id, attempts::int, http_status::int, latency_ms::int,
             at::timestamptz, request_headers::jsonb, excerpt
      from unnest(
        ${column((a) => String(a.deliveryId))}::text[], ${column((a) => a.agentId)}::text[],
        ${column((a) => String(a.attempt))}::text[], ${column((a) => String(a.httpStatus))}::text[],
        ${column((a) => String(a.latencyMs))}::text[], ${column((a) => a.at)}::text[],
        ${column((a) => a.requestHeaders)}::text[], ${column((a) => a.responseExcerpt)}::text[]
      ) as m(id, agent_id, attempts, http_status, latency_ms, at, request_headers, excerpt)
    ),
    hook as (
      update webhooks w
      set last_delivery_at = m.at, last_success_at = m.at, consecutive_failures = 0,
          updated_at = m.at
      from (select agent_id, max(at) as at from made group by agent_id) m
      where w.agent_id = m.agent_id
      returning 1
    )
    update webhook_deliveries d
    set status = 'succeeded', attempts = m.attempts, http_status = m.http_status,
        latency_ms = m.latency_ms, error = null, attempted_at = m.at,
        request_headers = m.request_headers, response_excerpt = m.excerpt,
        next_attempt_at = null, updated_at = m.at
    from made m
    where d.id = m.id and (select count(*) from hook) >= 0
      and (select count(*) from async_commit) = 1 and (select count(*) from wake) >= 0`;
}

interface Waiting {
  attempt: DeliveredAttempt;
  done: (error?: unknown) => void;
}

/**
 * Writes a group of settles, and answers every settle in it. When the group's statement fails,
 * each of its settles is tried alone, so one the database refuses cannot fail the others.
 */
async function settleGroup(sql: Sql, group: Waiting[]): Promise<void> {
  const write = async (attempts: DeliveredAttempt[]) => {
    await settleDelivered(sql, attempts);
  };
  try {
    await write(group.map((w) => w.attempt));
    for (const w of group) w.done();
  } catch (error) {
    if (group.length === 1) group[0]?.done(error);
    else
      await Promise.all(
        group.map((w) =>
          write([w.attempt]).then(
            () => w.done(),
            (alone: unknown) => w.done(alone ?? error),
          ),
        ),
      );
  }
}

const queues = new WeakMap<Sql, GroupedStatements<Waiting>>();

/**
 * Records a delivered attempt, in a statement shared with the process's other drains: those
 * settling in the same turn of the event loop, or while another settle is in flight.
 */
export function settleDeliveredAttempt(deps: CoreDeps, attempt: DeliveredAttempt): Promise<void> {
  let queue = queues.get(deps.sql);
  if (!queue) {
    queue = new GroupedStatements("settle", MAX_BATCH, (group) => settleGroup(deps.sql, group));
    queues.set(deps.sql, queue);
  }
  const settling = queue;
  return new Promise((resolve, reject) =>
    settling.add({ attempt, done: (error) => (error ? reject(error) : resolve()) }),
  );
}
