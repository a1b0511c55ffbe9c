import type { Sql } from "@switchboard/db";

/**
 * Drain leases (decision 0055): one worker process at a time drains an agent's webhook
 * deliveries, so they go out in seq order. A lease is a row of `webhook_drain_leases`; its
 * `holder` is a process's id, stamped alive in `job_worker_heartbeats` with the job runner's own
 * ids, and a lease whose holder has not been seen for `staleSeconds` is free to take. Each
 * statement decides under the row's lock, so a wake-up is never lost between two processes: a
 * process that finds the lease held sets `again`, and the holder reads once more before it lets
 * go (see `releaseDrainLeasesOf`).
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
 * Lets go of the leases of `agentIds` that `holder` holds and nobody marked `again`; answers
 * the agents let go. An agent not among them was either marked (another process was woken for
 * it: the holder takes it again, which clears the flag, and reads) or taken by another process
 * (this one having been taken for dead). A process woken after the holder's last read either
 * marked the lease before this statement (which then leaves it) or runs after it, and takes
 * the free lease itself: no wake-up is lost.
 */
export async function releaseDrainLeasesOf(
  sql: Sql,
  holder: string,
  agentIds: string[],
): Promise<Set<string>> {
  const rows = await sql<{ agent_id: string }[]>`
    update webhook_drain_leases set holder = null
    where holder = ${holder} and agent_id = any(${agentIds}) and not again
    returning agent_id`;
  return new Set(rows.map((row) => row.agent_id));
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

/** The drain holders (ids starting with `prefix`) stamped alive within `withinSeconds`. */
export async function liveDrainHolders(
  sql: Sql,
  prefix: string,
  withinSeconds: number,
): Promise<string[]> {
  const rows = await sql<{ worker_id: string }[]>`
    select worker_id from job_worker_heartbeats
    where starts_with(worker_id, ${prefix})
      and seen_at >= now() - make_interval(secs => ${withinSeconds})`;
  return rows.map((row) => row.worker_id);
}
