import { EventEmitter } from "node:events";
import {
  type CoreDeps,
  cleanupExpired,
  type DeliveryOutcome,
  deliverWebhook,
  expireAction,
  fireRecordDue,
  forgetWorkers,
  heartbeatWorkers,
  type JobName,
  type JobPayload,
  jobNames,
  jobPayloads,
  log,
  metrics,
  notifyMessage,
  notifyOwner,
  notifyPerson,
  retireKeysKeptInDatabase,
  retryPush,
  transcribeVoiceNote,
  unlockStaleJobs,
  WebhookDrains,
  withLogContext,
} from "@switchboard/core";
import { describeError, safeError } from "@switchboard/db";
import { Logger, type Runner, run, type Task, type WorkerEvents } from "graphile-worker";
import pg from "pg";
import type { ZodType } from "zod";

/** Which try of its job a task is running (graphile-worker counts this one in `attempts`). */
interface Attempt {
  attempts: number;
  maxAttempts: number;
}

/** What a task may use besides core's deps: this process's webhook drains. */
interface TaskContext extends Attempt {
  drains: WebhookDrains;
}

type Tasks = {
  [N in JobName]: (deps: CoreDeps, payload: JobPayload<N>, context: TaskContext) => Promise<void>;
};

/** One entry per job of core's job registry; each task is a thin adapter over core. */
const tasks: Tasks = {
  maintenance_cleanup: async (deps) => {
    await cleanupExpired(deps);
  },
  action_expire: async (deps, { actionId }) => {
    await expireAction(deps, actionId);
  },
  record_due: async (deps, job) => {
    await fireRecordDue(deps, job);
  },
  // A delivery's retry time: its agent's drain runs in this process's drains (if it can take
  // the agent's lease), not in the job's slot.
  webhook_drain: async (_deps, { agentId }, { drains }) => {
    drains.wake(agentId);
  },
  webhook_deliver: async (deps, { deliveryId }) => {
    recordDelivery(await deliverWebhook(deps, deliveryId), deliveryId);
  },
  message_transcribe: async (deps, { messageId }, { attempts, maxAttempts }) => {
    await transcribeVoiceNote(deps, messageId, { lastAttempt: attempts >= maxAttempts });
  },
  // Pushes: a failed device is retried by its own `push_send` job, never by throwing here (that
  // would push again to the devices that took it).
  push_notify: async (deps, job) => {
    await notifyPerson(deps, job);
  },
  push_message: async (deps, job) => {
    await notifyMessage(deps, job);
  },
  push_alert: async (deps, job) => {
    await notifyOwner(deps, job);
  },
  push_send: async (deps, job) => {
    await retryPush(deps, job);
  },
};

/** How long one agent's drain delivers before it yields to agents waiting behind it. */
const DRAIN_SLICE_MS = 1000;
/** How often the drains look for deliveries no wake-up reached (decision 0055). */
const DRAIN_SWEEP_MS = 5000;
/** How long an agent's drain lease is kept after its last delivery, for its next events. */
const DRAIN_LINGER_MS = 3000;

/**
 * Counts an attempt. Its line is at debug when it delivered (a steady load makes hundreds a
 * second, and each line costs CPU the deliveries need) and at info otherwise.
 */
function recordDelivery(outcome: DeliveryOutcome, deliveryId: number): void {
  const line = { deliveryId, outcome: outcome.status, httpStatus: outcome.httpStatus };
  if (outcome.status === "succeeded") log.debug(line, "delivery");
  else log.info(line, "delivery");
  metrics.deliveries.inc({ outcome: outcome.status });
  if (outcome.lagMs !== undefined) metrics.deliveryLag.observe(outcome.lagMs / 1000);
}

const schemas: { [N in JobName]: ZodType<JobPayload<N>> } = jobPayloads;

/** Jobs run about once per delivery: their line is at debug when they succeed. */
const perDeliveryJobs: ReadonlySet<JobName> = new Set(["webhook_deliver"]);

/**
 * Runs a job with its payload parsed by the registry (a malformed job fails, and is retried),
 * logging one line for it; lines logged inside carry the job's name and id.
 */
function runTask<N extends JobName>(
  deps: CoreDeps,
  name: N,
  payload: unknown,
  jobId: string,
  context: TaskContext,
): Promise<void> {
  return withLogContext({ job: name, jobId }, async () => {
    const started = performance.now();
    let outcome = "failed";
    try {
      const parsed = schemas[name].safeParse(payload);
      // One line naming each bad field: the job's last_error and the log show it whole.
      if (!parsed.success)
        throw new Error(
          `invalid ${name} payload: ${parsed.error.issues
            .map((issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`)
            .join("; ")}`,
        );
      await tasks[name](deps, parsed.data, context);
      outcome = "done";
    } finally {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      const level = outcome === "done" && perDeliveryJobs.has(name) ? "debug" : "info";
      log[level]({ outcome, ms }, "job");
      metrics.jobs.inc({ job: name, outcome });
    }
  });
}

const logger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") log.warn({ component: "jobs" }, message);
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
  const concurrency = deps.config.JOB_CONCURRENCY;
  const pgPool = new pg.Pool({ connectionString, max: concurrency + 2 });
  pgPool.on("error", (error) =>
    log.warn({ component: "jobs", err: describeError(error) }, "job queue connection lost"),
  );
  // Webhook deliveries run in this process's drains, which hold agents' leases under an id of
  // their own, stamped alive with the job runner's ids. Started before the runner: a retry's
  // timer job wakes them.
  const drains = new WebhookDrains(deps, {
    concurrency: deps.config.WEBHOOK_CONCURRENCY,
    sliceMs: DRAIN_SLICE_MS,
    sweepMs: DRAIN_SWEEP_MS,
    lingerMs: DRAIN_LINGER_MS,
    onOutcome: recordDelivery,
  });
  // A failed job's error is logged and kept (`last_error`) by the queue: described without the
  // bound parameters a failed query's error carries.
  const taskList: Record<string, Task> = Object.fromEntries(
    jobNames.map((name) => [
      name,
      (payload, helpers) =>
        runTask(deps, name, payload, helpers.job.id, {
          attempts: helpers.job.attempts,
          maxAttempts: helpers.job.max_attempts,
          drains,
        }).catch((error: unknown) => {
          throw safeError(error);
        }),
    ]),
  );
  // Our worker ids, stamped as alive while this process runs (known before any takes a job).
  const events: WorkerEvents = new EventEmitter();
  const workerIds = new Set<string>([drains.holder]);
  events.on("worker:create", ({ worker }) => workerIds.add(worker.workerId));
  events.on("worker:stop", ({ worker }) => workerIds.delete(worker.workerId));
  await drains.start();
  const runner: Runner = await run({
    pgPool,
    events,
    concurrency,
    noHandleSignals: true,
    pollInterval: 2000,
    logger,
    taskList,
    crontab: "*/15 * * * * maintenance_cleanup",
  });
  // Alive: a heartbeat several times per JOB_LOCK_STALE_S. Dead workers' locks: swept now (a
  // restart after a crash) and then regularly.
  const stale = deps.config.JOB_LOCK_STALE_S;
  const heartbeat = () =>
    heartbeatWorkers(deps.db, workerIds).catch((error) =>
      log.warn({ component: "jobs", err: describeError(error) }, "worker heartbeat failed"),
    );
  const sweep = () =>
    unlockStaleJobs(deps.db, stale).catch((error) =>
      log.warn({ component: "jobs", err: describeError(error) }, "stale lock sweep failed"),
    );
  await heartbeat();
  await sweep();
  // Webhook secrets kept in clear by an older version are sealed now, and keys it kept in the
  // database are retired (what they sealed sealed again under SECRETS_KEY).
  await retireKeysKeptInDatabase(deps).catch((error) =>
    log.warn({ component: "jobs", err: describeError(error) }, "sealing webhook secrets failed"),
  );
  const beater = setInterval(heartbeat, Math.min(10, stale / 4) * 1000);
  const sweeper = setInterval(sweep, Math.min(60, stale) * 1000);
  return {
    stop: async () => {
      clearInterval(sweeper);
      clearInterval(beater);
      const ids = [...workerIds];
      await drains
        .stop()
        .catch((error) =>
          log.warn(
            { component: "jobs", err: describeError(error) },
            "stopping webhook drains failed",
          ),
        );
      await runner.stop();
      await forgetWorkers(deps.db, ids).catch(() => {});
      await pgPool.end();
    },
  };
}
