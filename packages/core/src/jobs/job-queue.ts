import type { CoreDeps } from "../deps";

export interface JobQueueDepth {
  /** Jobs due now and waiting for a worker. */
  ready: number;
  /** Seconds the oldest of them has waited (0 when none waits). */
  oldestSeconds: number;
  /**
   * Jobs that failed every attempt and will not run again. A job whose key a newer add took
   * over is marked out of attempts too, but it did not fail: it is running, or was running on
   * a worker that died (its newer job does the work).
   */
  failed: number;
}

/** The job queue as a whole, every worker's jobs (graphile-worker's table). */
export async function readJobQueue(deps: CoreDeps): Promise<JobQueueDepth> {
  const [row] = await deps.sql<JobQueueDepth[]>`
    select count(*) filter (where locked_at is null and run_at <= now()
                              and attempts < max_attempts)::int as ready,
           coalesce(extract(epoch from now() - min(run_at) filter (
             where locked_at is null and run_at <= now() and attempts < max_attempts)), 0)::float
             as "oldestSeconds",
           count(*) filter (where attempts >= max_attempts and locked_at is null
                              and last_error is not null)::int as failed
    from graphile_worker._private_jobs`;
  return row ?? { ready: 0, oldestSeconds: 0, failed: 0 };
}
