import type { Sql } from "@switchboard/db";

/**
 * Drain leases (decision 0055): one worker process at a time drains an agent's webhook
 * deliveries, so they go out in seq order. A lease is a row of `webhook_drain_leases`; its
 * `holder` is a process's id, stamped alive in `job_worker_heartbeats` with the job runner's own
 * ids, and a lease whose holder has not been seen for `staleSeconds` is free to take. Each
 * statement decides under the row's lock, so a wake-up is never lost between two processes: a
 * process that finds the lease held sets `again`, and the holder reads once more before it lets
 * go (see `releaseDrainLease`).
 */

/** A holder that has not stamped its heartbeat for this long is taken for dead. */
const holderDead = (staleSeconds: number) => `not exists (
  select 1 from job_worker_heartbeats h
  where h.worker_id = l.holder and h.seen_at >= now() - make_interval(secs => ${Number(staleSeconds)})
)`;

/**
 * Takes the agent's lease for `holder` when it is free, already its own, or its holder is dead;
 * otherwise marks it `again` for its holder. True when `holder` now holds it.
 */
export async function takeDrainLease(
  sql: Sql,
  agentId: string,
  holder: string,
  staleSeconds: number,
): Promise<boolean> {
  const free = `(l.holder is null or l.holder = $2 or ${holderDead(staleSeconds)})`;
  const [row] = await sql.unsafe<{ taken: boolean }[]>(
    `insert into webhook_drain_leases as l (agent_id, holder, again) values ($1, $2, false)
     on conflict (agent_id) do update set
       holder = case when ${free} then $2 else l.holder end,
       again = not ${free}
     returning l.holder = $2 as taken`,
    [agentId, holder],
    { prepare: true },
  );
  return row?.taken === true;
}

/**
 * What letting go found: `released` (nobody holds it now), `again` (another process was woken
 * for the agent meanwhile: the holder read again, and the flag is cleared), or `lost` (another
 * process took it, this one having been taken for dead: stop without another attempt).
 */
export type Release = "released" | "again" | "lost";

/**
 * Lets go of the lease unless `again` is set. A process woken after the holder's last read
 * either set `again` before this statement (the update then finds it set, and the holder reads
 * again) or runs after it (and takes the free lease itself).
 */
export async function releaseDrainLease(
  sql: Sql,
  agentId: string,
  holder: string,
): Promise<Release> {
  const [row] = await sql<{ freed: number; held: boolean }[]>`
    with freed as (
      update webhook_drain_leases set holder = null
      where agent_id = ${agentId} and holder = ${holder} and not again
      returning 1
    )
    select (select count(*) from freed)::int as freed,
      exists (select 1 from webhook_drain_leases
              where agent_id = ${agentId} and holder = ${holder}) as held`;
  if (row?.freed === 1) return "released";
  if (!row?.held) return "lost";
  // `again` was set: cleared here, under the row's lock, before the holder reads again.
  const cleared = await sql`
    update webhook_drain_leases set again = false
    where agent_id = ${agentId} and holder = ${holder}
    returning 1`;
  return cleared.length === 1 ? "again" : "lost";
}

/** Lets go of every lease `holder` holds (a process stopping). */
export async function releaseDrainLeases(sql: Sql, holder: string): Promise<void> {
  await sql`update webhook_drain_leases set holder = null, again = false where holder = ${holder}`;
}

/**
 * Agents with a delivery due that no other live process is draining: for a process's sweep,
 * which catches what no wake-up reached (a notification lost while a LISTEN reconnected, a
 * worker that died holding leases, deliveries committed while no worker ran). Agents whose lease
 * `holder` itself holds are included: a drain of its own that failed (the database was away)
 * left it so. At most `limit`.
 */
export async function agentsWithUnclaimedDeliveries(
  sql: Sql,
  now: Date,
  staleSeconds: number,
  holder: string,
  limit = 1000,
): Promise<string[]> {
  const rows = await sql.unsafe<{ agent_id: string }[]>(
    `select d.agent_id from webhook_deliveries d
     where d.status = 'pending' and d.next_attempt_at <= $1
       and not exists (
         select 1 from webhook_drain_leases l
         where l.agent_id = d.agent_id and l.holder <> $2 and not ${holderDead(staleSeconds)}
       )
     group by d.agent_id
     limit $3`,
    [now.toISOString(), holder, limit],
    { prepare: true },
  );
  return rows.map((row) => row.agent_id);
}

/**
 * Stamps `holder` alive and answers the drain holders (ids starting with `prefix`) stamped
 * within `withinSeconds`, `holder` among them.
 */
export async function stampAndListDrainHolders(
  sql: Sql,
  holder: string,
  prefix: string,
  withinSeconds: number,
): Promise<string[]> {
  const rows = await sql<{ worker_id: string }[]>`
    with stamp as (
      insert into job_worker_heartbeats (worker_id, seen_at) values (${holder}, now())
      on conflict (worker_id) do update set seen_at = excluded.seen_at
    )
    select worker_id from job_worker_heartbeats
    where starts_with(worker_id, ${prefix}) and worker_id <> ${holder}
      and seen_at >= now() - make_interval(secs => ${withinSeconds})`;
  return [holder, ...rows.map((row) => row.worker_id)];
}
