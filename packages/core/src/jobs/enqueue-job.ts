import type { Executor } from "@switchboard/db";
import { sql } from "drizzle-orm";

/**
 * Durable work goes through graphile-worker's queue in Postgres. Enqueueing is a SQL call, so a
 * job commits (or rolls back) with the transaction that needs it: a crash delays work, never
 * loses it. The worker process runs the tasks (apps/worker/src/jobs/).
 */
export type JobName = "maintenance_cleanup" | "record_due" | "action_expire" | "webhook_deliver";

export interface EnqueueOptions {
  /** Not before this time. */
  runAt?: Date;
  /** A key makes the job replaceable: enqueueing the same key again reschedules it. */
  jobKey?: string;
  /** Jobs in one queue run one at a time, in order. */
  queue?: string;
  maxAttempts?: number;
}

export async function enqueueJob(
  db: Executor,
  name: JobName,
  payload: Record<string, unknown>,
  options: EnqueueOptions = {},
): Promise<void> {
  await db.execute(sql`select graphile_worker.add_job(
    ${name},
    ${JSON.stringify(payload)}::json,
    queue_name => ${options.queue ?? null}::text,
    run_at => ${options.runAt?.toISOString() ?? null}::timestamptz,
    max_attempts => ${options.maxAttempts ?? 25}::int,
    job_key => ${options.jobKey ?? null}::text
  )`);
}

/** Drops a keyed job that has not started yet (a deleted record's due timer, say). */
export async function cancelJob(db: Executor, jobKey: string): Promise<void> {
  await db.execute(sql`select graphile_worker.remove_job(${jobKey})`);
}

/**
 * Frees the jobs (and job queues) of workers that died holding them: graphile-worker itself
 * waits 4 hours, and a locked queue would hold up every later delivery of that agent. Our jobs
 * take seconds, so a lock older than `staleSeconds` can only be a dead worker's.
 */
export async function unlockStaleJobs(db: Executor, staleSeconds: number): Promise<void> {
  await db.execute(sql`select graphile_worker.force_unlock_workers(array(
    select locked_by from graphile_worker._private_jobs
    where locked_at < now() - make_interval(secs => ${staleSeconds})
    union
    select locked_by from graphile_worker._private_job_queues
    where locked_at < now() - make_interval(secs => ${staleSeconds})
  ))`);
}
