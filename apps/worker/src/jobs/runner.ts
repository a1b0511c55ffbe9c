import {
  type CoreDeps,
  cleanupExpired,
  fireRecordDue,
  type JobName,
  type RecordDueJob,
} from "@switchboard/core";
import { Logger, type Runner, run, type Task } from "graphile-worker";

/** One entry per job name core can enqueue; each task is a thin adapter over core. */
const tasks: Record<JobName, (deps: CoreDeps, payload: unknown) => Promise<void>> = {
  maintenance_cleanup: async (deps) => {
    await cleanupExpired(deps);
  },
  record_due: async (deps, payload) => {
    await fireRecordDue(deps, payload as RecordDueJob);
  },
};

const logger = new Logger(() => (level, message, meta) => {
  if (level === "error" || level === "warning") console.warn(`[jobs] ${message}`, meta ?? "");
});

/**
 * Runs the Postgres-backed job queue (graphile-worker) in this process. Any number of worker
 * processes can run it against one database; the queue hands each job to exactly one.
 */
export async function startJobRunner(deps: CoreDeps, connectionString: string): Promise<Runner> {
  const taskList: Record<string, Task> = Object.fromEntries(
    Object.entries(tasks).map(([name, handle]) => [name, (payload) => handle(deps, payload)]),
  );
  return run({
    connectionString,
    concurrency: 10,
    noHandleSignals: true,
    pollInterval: 2000,
    logger,
    taskList,
    crontab: "*/15 * * * * maintenance_cleanup",
  });
}
