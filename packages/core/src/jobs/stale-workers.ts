import type { Executor } from "@switchboard/db";
import { sql } from "drizzle-orm";

/**
 * Job-queue workers say they are alive: every worker process stamps its graphile-worker ids
 * (`job_worker_heartbeats`) every few seconds, with the database's clock.
 */
export async function heartbeatWorkers(db: Executor, workerIds: Iterable<string>): Promise<void> {
  const ids = [...workerIds];
  if (ids.length === 0) return;
  await db.execute(sql`
    insert into job_worker_heartbeats (worker_id, seen_at)
    select id, now() from unnest(${sql`array[${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]`}) as id
    on conflict (worker_id) do update set seen_at = excluded.seen_at`);
}

/** A stopping worker process removes its stamps (a crashed one's simply grow old). */
export async function forgetWorkers(db: Executor, workerIds: Iterable<string>): Promise<void> {
  const ids = [...workerIds];
  if (ids.length === 0) return;
  await db.execute(
    sql`delete from job_worker_heartbeats where worker_id in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`,
  );
}

/**
 * Frees the jobs (and job queues) of workers that died holding them: graphile-worker itself
 * waits 4 hours, and a locked queue would hold up every later delivery of that agent. A lock is
 * a dead worker's when it is older than `staleSeconds` and its worker has not stamped a
 * heartbeat for as long; a live worker's long job keeps its lock. Old stamps are cleared.
 */
export async function unlockStaleJobs(db: Executor, staleSeconds: number): Promise<void> {
  const stale = sql`now() - make_interval(secs => ${staleSeconds})`;
  await db.execute(sql`select graphile_worker.force_unlock_workers(array(
    select distinct l.locked_by from (
      select locked_by, locked_at from graphile_worker._private_jobs where locked_by is not null
      union all
      select locked_by, locked_at from graphile_worker._private_job_queues where locked_by is not null
    ) l
    where l.locked_at < ${stale}
      and not exists (
        select 1 from job_worker_heartbeats h where h.worker_id = l.locked_by and h.seen_at >= ${stale})
  ))`);
  await db.execute(sql`delete from job_worker_heartbeats where seen_at < now() - interval '1 day'`);
}
