import { schema } from "@switchboard/db";
import { and, inArray, lt } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { deleteExpiredIdempotencyKeys } from "../idempotency/idempotency-keys";
import { endAbandonedReplies } from "../messaging/streamed-replies";
import { dropExpiredEvents, ensureEventPartitions } from "./event-partitions";

const { rateCounters, parkedPolls, endedSessions, webhookDeliveries, consolePresence } = schema;

/**
 * Removes state that has run out: past rate windows (kept a day for the console), stale leases,
 * signed-out sessions past their own expiry, console tabs' expired presence leases, Idempotency-Keys past their 24 hours, and
 * streamed replies whose connection is gone.
 * Keeps the event log's partitions ready two days ahead. And, when the operator sets a
 * retention (default: keep everything; agents may replay from seq 0), drops the event log's
 * partitions wholly older than EVENT_RETENTION_DAYS (event-partitions.ts: events are kept at
 * least that long) and deletes finished webhook deliveries older than DELIVERY_RETENTION_DAYS
 * (a pending delivery is never dropped).
 */
export async function cleanupExpired(deps: CoreDeps): Promise<{
  rateCounters: number;
  parkedPolls: number;
  replies: number;
  endedSessions: number;
  /** Event log partitions added ahead and dropped past the retention, by name. */
  eventPartitions: { created: string[]; dropped: string[] };
  /** Events deleted one by one: those past the retention that no partition held. */
  strayEvents: number;
  deliveries: number;
  /** Idempotency-Keys past their 24 hours. */
  idempotencyKeys: number;
  /** Expired leases of console tabs that closed without a word. */
  consolePresence: number;
}> {
  const now = deps.clock.now();
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  const counters = await deps.db
    .delete(rateCounters)
    .where(lt(rateCounters.windowStart, dayAgo))
    .returning({ key: rateCounters.key });
  const leases = await deps.db
    .delete(parkedPolls)
    .where(lt(parkedPolls.expiresAt, now))
    .returning({ id: parkedPolls.id });
  const presence = await deps.db
    .delete(consolePresence)
    .where(lt(consolePresence.expiresAt, now))
    .returning({ tabId: consolePresence.tabId });
  const sessions = await deps.db
    .delete(endedSessions)
    .where(lt(endedSessions.expiresAt, now))
    .returning({ id: endedSessions.id });
  // Streamed replies of a connection that died: ended once they are well past the idle limit.
  const replies = await endAbandonedReplies(
    deps,
    new Date(now.getTime() - 2 * deps.config.STREAM_REPLY_IDLE_S * 1000),
  );
  const idempotencyKeys = await deleteExpiredIdempotencyKeys(deps, now);
  const created = await ensureEventPartitions(deps, now);
  const retention = await applyRetention(deps, now);
  return {
    eventPartitions: { created, dropped: retention.partitions },
    strayEvents: retention.strayEvents,
    deliveries: retention.deliveries,
    rateCounters: counters.length,
    parkedPolls: leases.length,
    replies,
    endedSessions: sessions.length,
    idempotencyKeys,
    consolePresence: presence.length,
  };
}

const DAY_MS = 24 * 3600_000;

async function applyRetention(deps: CoreDeps, now: Date) {
  const { EVENT_RETENTION_DAYS: eventDays, DELIVERY_RETENTION_DAYS: deliveryDays } = deps.config;
  let deliveries = 0;
  if (deliveryDays > 0)
    deliveries += (
      await deps.db
        .delete(webhookDeliveries)
        .where(
          and(
            lt(webhookDeliveries.updatedAt, new Date(now.getTime() - deliveryDays * DAY_MS)),
            inArray(webhookDeliveries.status, ["succeeded", "dead"]),
          ),
        )
        .returning({ id: webhookDeliveries.id })
    ).length;
  if (eventDays === 0) return { partitions: [], strayEvents: 0, deliveries };
  const gone = await dropExpiredEvents(deps, now, eventDays);
  return { ...gone, deliveries: deliveries + gone.deliveries };
}
