import { schema, type Tx } from "@switchboard/db";
import { and, lt, notExists, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";

const { events, webhookDeliveries } = schema;

/**
 * The event log is partitioned by range of `ts` (migration 0019, decision 0047): retention drops
 * whole partitions instead of deleting rows. The maintenance job keeps partitions ready ahead of
 * time and drops those wholly past the retention. `events_default` takes any row no partition
 * covers, so an append never fails, however late maintenance runs.
 */

const DAY_MS = 24 * 3600_000;
/** Partitions exist at least this far ahead, so appends find one even if maintenance pauses. */
const AHEAD_MS = 2 * DAY_MS;
/** Width of partitions when events are kept forever: a quarter of a year. */
const KEEP_FOREVER_DAYS = 91;
const DEFAULT_PARTITION = "events_default";
/** Serialises partition changes between maintenance runs of several workers. */
const PARTITION_LOCK = 0x5b0e7f;
/**
 * Attaching and detaching lock the event log briefly; waiting longer than this for a busy log
 * would hold every append and read queued behind the wait. The next run (15 minutes) retries.
 */
const LOCK_TIMEOUT = "2s";

/**
 * Days one partition covers: a quarter of the retention (at least a day), so about five
 * partitions hold the retained log and each read probes few of them; 91 days when kept forever.
 */
export function partitionDays(retentionDays: number): number {
  return retentionDays === 0 ? KEEP_FOREVER_DAYS : Math.max(1, Math.floor(retentionDays / 4));
}

/** One range partition of the event log; `from` is null for the open start (MINVALUE). */
export interface EventPartition {
  name: string;
  from: Date | null;
  to: Date;
}

/** The log's range partitions, oldest first, with their bounds as Postgres keeps them. */
export async function eventPartitions(tx: Pick<Tx, "execute">): Promise<EventPartition[]> {
  const rows = (await tx.execute(sql`
    select c.relname as name,
      case when b[1] = 'MINVALUE' then null else btrim(b[1], '''')::timestamptz end as "from",
      btrim(b[2], '''')::timestamptz as "to"
    from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    cross join lateral regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\((.+)\\) TO \\((.+)\\)') b
    where i.inhparent = 'events'::regclass and b is not null
    order by 3
  `)) as unknown as { name: string; from: string | Date | null; to: string | Date }[];
  return rows.map((row) => ({
    name: row.name,
    from: row.from === null ? null : new Date(row.from),
    to: new Date(row.to),
  }));
}

function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/** `events_20261127`: the UTC day a partition starts, unique because partitions never overlap. */
function partitionName(from: Date): string {
  return `events_${from.toISOString().slice(0, 10).replaceAll("-", "")}`;
}

/** A timestamptz literal (DDL takes no parameters); made only from Dates, never from input. */
function at(date: Date) {
  return sql.raw(`'${date.toISOString()}'::timestamptz`);
}

/** Runs partition DDL under the lock, giving up instead of queueing behind a busy log. */
function underPartitionLock<T>(deps: CoreDeps, work: (tx: Tx) => Promise<T>): Promise<T> {
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
    await tx.execute(sql`select pg_advisory_xact_lock(${PARTITION_LOCK})`);
    return work(tx);
  });
}

/**
 * Adds partitions from the end of the newest one (or from today, when the log has a gap: after
 * a long pause, or when none is left) until one reaches two days past `now`. Rows that meanwhile
 * landed in the default partition and belong to a new partition move into it before it is
 * attached (Postgres refuses to attach over rows the default holds). Answers the names added.
 */
export function ensureEventPartitions(deps: CoreDeps, now: Date): Promise<string[]> {
  const width = partitionDays(deps.config.EVENT_RETENTION_DAYS) * DAY_MS;
  return underPartitionLock(deps, async (tx) => {
    const newest = (await eventPartitions(tx)).at(-1)?.to.getTime() ?? 0;
    const created: string[] = [];
    let from = new Date(Math.max(newest, startOfUtcDay(now).getTime()));
    while (from.getTime() <= now.getTime() + AHEAD_MS) {
      const to = new Date(from.getTime() + width);
      await addPartition(tx, partitionName(from), from, to);
      created.push(partitionName(from));
      from = to;
    }
    return created;
  });
}

async function addPartition(tx: Tx, name: string, from: Date, to: Date): Promise<void> {
  const table = sql.identifier(name);
  await tx.execute(sql`create table ${table} (like ${events} including all)`);
  await tx.execute(sql`
    with moved as (
      delete from ${sql.identifier(DEFAULT_PARTITION)} where ts >= ${at(from)} and ts < ${at(to)}
      returning *)
    insert into ${table} select * from moved`);
  await tx.execute(
    sql`alter table ${events} attach partition ${table} for values from (${at(from)}) to (${at(to)})`,
  );
}

/**
 * Retention: drops the partitions wholly older than `retentionDays` before `now`, and deletes
 * the default partition's rows older than that (normally it holds none). A partition that straddles the cut
 * stays until all of it is past, so events are kept at least the retention, at most one
 * partition width (a quarter of it) longer. Deliveries of removed events go with them. The
 * detach commits first (a brief lock on the log); the drop, which frees the disk, runs after
 * on a table no query reaches any more (and picks up what an interrupted pass left detached).
 */
export async function dropExpiredEvents(
  deps: CoreDeps,
  now: Date,
  retentionDays: number,
): Promise<{ partitions: string[]; strayEvents: number; deliveries: number }> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const { partitions, strayEvents } = await underPartitionLock(deps, async (tx) => {
    const expired = (await eventPartitions(tx)).filter((p) => p.to.getTime() <= cutoff.getTime());
    for (const { name } of expired)
      await tx.execute(sql`alter table ${events} detach partition ${sql.identifier(name)}`);
    const [stray] = (await tx.execute(sql`
      with gone as (delete from ${sql.identifier(DEFAULT_PARTITION)} where ts < ${at(cutoff)} returning 1)
      select count(*)::int as n from gone`)) as unknown as { n: number }[];
    return { partitions: expired.map((p) => p.name), strayEvents: stray?.n ?? 0 };
  });
  for (const name of await detachedPartitions(deps))
    await deps.db.execute(sql`drop table ${sql.identifier(name)}`);
  const deliveries =
    partitions.length + strayEvents > 0 ? await dropDeliveriesOfGoneEvents(deps, cutoff) : 0;
  return { partitions, strayEvents, deliveries };
}

/**
 * Partitions detached and not yet dropped: this pass's, and any an interrupted pass left (the
 * detach commits before the drop). Known by name; nothing else is named like them.
 */
async function detachedPartitions(deps: CoreDeps): Promise<string[]> {
  const rows = (await deps.db.execute(sql`
    select relname as name from pg_class
    where relnamespace = 'public'::regnamespace and relkind = 'r' and not relispartition
      and relname ~ '^events_([0-9]{8}|history)$'
  `)) as unknown as { name: string }[];
  return rows.map((row) => row.name);
}

/**
 * Deliveries made before `cutoff` (with their event) whose event is no longer in the log. Each
 * event is looked for by its id and its time (a delivery's `created_at` is its event's `ts`), so
 * where Postgres probes per delivery it reads the one partition that could hold the event, not
 * every partition's index (decision 0051).
 */
async function dropDeliveriesOfGoneEvents(deps: CoreDeps, cutoff: Date): Promise<number> {
  const gone = await deps.db
    .delete(webhookDeliveries)
    .where(
      and(
        lt(webhookDeliveries.createdAt, cutoff),
        notExists(
          deps.db
            .select({ one: sql`1` })
            .from(events)
            .where(
              sql`${events.id} = ${webhookDeliveries.eventId} and ${events.ts} = ${webhookDeliveries.createdAt}`,
            ),
        ),
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return gone.length;
}
