import {
  type CoreDeps,
  cleanupExpired,
  deliverWebhook,
  expireAction,
  fireRecordDue,
  type JobName,
  type RecordDueJob,
  unlockStaleJobs,
} from "@switchboard/core";
import { Logger, type Runner, run, type Task } from "graphile-worker";
import pg from "pg";

/** One entry per job name core can enqueue; each task is a thin adapter over core. */
const tasks: Record<JobName, (deps: CoreDeps, payload: unknown) => Promise<void>> = {
  maintenance_cleanup: async (deps) => {
    await cleanupExpired(deps);
  },
  action_expire: async (deps, payload) => {
    await expireAction(deps, (payload as { actionId: string }).actionId);
  },
  record_due: async (deps, payload) => {
    await fireRecordDue(deps, payload as RecordDueJob);
  },
  webhook_deliver: async (deps, payload) => {
    await deliverWebhook(deps, (payload as { deliveryId: number }).deliveryId);
  },
};

const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.warn(`[jobs] ${message}`);
});

/**
 * Runs the Postgres-backed job queue (graphile-worker) in this process. Any number of worker
 * processes can run it against one database; the queue hands each job to exactly one.
 */
export async function startJobRunner(
  deps: CoreDeps,
  connectionString: string,
): Promise<{ stop(): Promise<void> }> {
  // Our own pool, so a connection dropped while Postgres shuts down is logged, never a crash.
  const pgPool = new pg.Pool({ connectionString, max: 12 });
  pgPool.on("error", (error) => console.warn(`[jobs] connection lost: ${error.message}`));
  const taskList: Record<string, Task> = Object.fromEntries(
    Object.entries(tasks).map(([name, handle]) => [name, (payload) => handle(deps, payload)]),
  );
  const runner: Runner = await run({
    pgPool,
    concurrency: 10,
    noHandleSignals: true,
    pollInterval: 2000,
    logger,
    taskList,
    crontab: "*/15 * * * * maintenance_cleanup",
  });
  // Dead workers' locks: swept now (a restart after a crash) and then regularly.
  const sweep = () =>
    unlockStaleJobs(deps.db, deps.config.JOB_LOCK_STALE_S).catch((error) =>
      console.warn(`[jobs] stale lock sweep failed: ${(error as Error).message}`),
    );
  await sweep();
  const sweeper = setInterval(sweep, Math.min(60, deps.config.JOB_LOCK_STALE_S) * 1000);
  return {
    stop: async () => {
      clearInterval(sweeper);
      await runner.stop();
      await pgPool.end();
    },
  };
}
