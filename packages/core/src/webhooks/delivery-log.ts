import type { WebhookDelivery } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, desc, eq, gt, lt } from "drizzle-orm";
import type { CoreDeps } from "../deps";

const { webhookDeliveries } = schema;

/** Which deliveries the owner's log shows: one event's, those in one status, of one type. */
export interface DeliveryFilter {
  eventId?: string;
  status?: WebhookDelivery["status"];
  eventType?: string;
}

/**
 * Where a page of the log starts, by event seq (the log's order): the deliveries of events
 * before `before` (older), or after `after` (newer). Keyset paging: a page reads only its own
 * rows through the (agent, seq) index, however deep it is, and stays put while new events come.
 */
export type DeliveryCursor = { before: number } | { after: number } | Record<string, never>;

/** A page of the log, newest first, with the cursors of the pages beside it (null: none). */
export interface DeliveryLogPage {
  deliveries: WebhookDelivery[];
  older: { before: number } | null;
  newer: { after: number } | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/**
 * An agent's deliveries, newest first, for the owner's console and CLI: at most `limit`, matching
 * `filter`, on the page `cursor` names (the newest when none).
 */
export async function listWebhookDeliveries(
  deps: CoreDeps,
  agentId: string,
  limit = 50,
  filter: DeliveryFilter = {},
  cursor: DeliveryCursor = {},
): Promise<WebhookDelivery[]> {
  const seq = webhookDeliveries.eventSeq;
  // A newer page is read upwards from its cursor (the rows nearest it), then shown newest first.
  const upwards = "after" in cursor;
  const rows = await deps.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.agentId, agentId),
        filter.eventId ? eq(webhookDeliveries.eventId, filter.eventId) : undefined,
        filter.status ? eq(webhookDeliveries.status, filter.status) : undefined,
        filter.eventType ? eq(webhookDeliveries.eventType, filter.eventType) : undefined,
        "before" in cursor ? lt(seq, cursor.before) : undefined,
        "after" in cursor ? gt(seq, cursor.after) : undefined,
      ),
    )
    .orderBy(upwards ? asc(seq) : desc(seq))
    .limit(limit);
  if (upwards) rows.reverse();
  return rows.map((row) => ({
    eventId: row.eventId,
    eventSeq: row.eventSeq,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    httpStatus: row.httpStatus,
    latencyMs: row.latencyMs,
    error: row.error,
    nextAttemptAt: iso(row.nextAttemptAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}

/**
 * One page of the owner's delivery log (`pageSize` deliveries, newest first) and whether there
 * are older and newer ones: the page is read with one row more in the direction it goes (is
 * there a next page?) and, beside it, one row the other way from its cursor (a previous page?).
 * An empty page (a shared link whose rows went) still leads back from its cursor.
 */
export async function readDeliveryLog(
  deps: CoreDeps,
  agentId: string,
  filter: DeliveryFilter,
  cursor: DeliveryCursor,
  pageSize: number,
): Promise<DeliveryLogPage> {
  const list = (limit: number, from: DeliveryCursor) =>
    listWebhookDeliveries(deps, agentId, limit, filter, from);
  if ("after" in cursor) {
    // Going up: the extra row is the newest; anything up to the cursor is older.
    const [read, below] = await Promise.all([
      list(pageSize + 1, cursor),
      list(1, { before: cursor.after + 1 }),
    ]);
    const deliveries = read.length > pageSize ? read.slice(1) : read;
    const newest = deliveries[0];
    return {
      deliveries,
      newer: read.length > pageSize && newest ? { after: newest.eventSeq } : null,
      older: below.length > 0 ? { before: deliveries.at(-1)?.eventSeq ?? cursor.after + 1 } : null,
    };
  }
  // Going down (or the newest page): the extra row is the oldest; anything from the cursor up
  // is newer.
  const [read, above] = await Promise.all([
    list(pageSize + 1, cursor),
    "before" in cursor ? list(1, { after: cursor.before - 1 }) : [],
  ]);
  const deliveries = read.slice(0, pageSize);
  const oldest = deliveries.at(-1);
  return {
    deliveries,
    older: read.length > pageSize && oldest ? { before: oldest.eventSeq } : null,
    newer:
      above.length > 0 && "before" in cursor
        ? { after: deliveries[0]?.eventSeq ?? cursor.before - 1 }
        : null,
  };
}
