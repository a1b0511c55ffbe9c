import { clientOf, type Executor, type Sql } from "@switchboard/db";
import { sql } from "drizzle-orm";
import type { PendingQuery, Row } from "postgres";
import { z } from "zod";

/**
 * Durable work goes through graphile-worker's queue in Postgres. Enqueueing is a SQL call, so a
 * job commits (or rolls back) with the transaction that needs it: a crash delays work, never
 * loses it. The worker process runs the tasks (apps/worker/src/jobs/).
 */

/**
 * The job registry: each job name and its payload. Enqueueing is typed by it and the runner
 * parses each payload with it before the task sees it.
 */
export const jobPayloads = {
  /** Cron-started; graphile-worker passes its own `_cron` details, which the task ignores. */
  maintenance_cleanup: z.object({}),
  /** A task or reminder comes due; `at` is the due time the timer was set for. */
  record_due: z.object({
    type: z.enum(["task", "reminder"]),
    id: z.string(),
    at: z.iso.datetime({ offset: true }),
  }),
  action_expire: z.object({ actionId: z.string() }),
  /** Delivers the agent's due webhook deliveries in order (deliver-webhook.ts). */
  webhook_drain: z.object({ agentId: z.string() }),
  /** A person's voice note to an agent gets its transcript (voice/transcribe-voice-note.ts). */
  message_transcribe: z.object({ messageId: z.string() }),
  /** A person's devices get a push about a card (notifications/send-push.ts). */
  push_notify: z.object({
    userId: z.string(),
    notice: z.enum(["card", "reminder", "close"]),
    actionId: z.string(),
  }),
  /** A chat's latest message from an agent, pushed unless the person is looking (send-push.ts). */
  push_message: z.object({
    userId: z.string(),
    conversationId: z.string(),
    messageId: z.string(),
  }),
  /** An agent's owner hears of it on their devices: paused by a ceiling, a webhook failing or off. */
  push_alert: z.object({
    agentId: z.string(),
    alert: z.enum(["paused", "webhook_failing", "webhook_disabled"]),
    /** The ceiling reached, or the webhook's failures in a row. */
    detail: z.string().optional(),
  }),
  /** One device's next attempt at a push its push service did not take. */
  push_send: z.object({
    subscriptionId: z.number().int(),
    delivery: z.record(z.string(), z.unknown()),
    attempt: z.number().int().min(1),
    deadline: z.iso.datetime({ offset: true }),
  }),
  /** One delivery; only jobs enqueued before drains existed still carry it. */
  webhook_deliver: z.object({ deliveryId: z.number().int() }),
} as const;
export type JobName = keyof typeof jobPayloads;
export const jobNames = Object.keys(jobPayloads) as JobName[];
export type JobPayload<N extends JobName> = z.infer<(typeof jobPayloads)[N]>;

export interface EnqueueOptions {
  /** Not before this time. */
  runAt?: Date;
  /** A key makes the job replaceable: enqueueing the same key again reschedules it. */
  jobKey?: string;
  /** Jobs in one queue run one at a time, in order. */
  queue?: string;
  maxAttempts?: number;
  /**
   * With `jobKey`: `preserve_run_at` keeps a waiting job's time and takes only the new payload
   * (one run per window however often it is enqueued); the default, `replace`, takes both.
   */
  keyMode?: "replace" | "preserve_run_at";
}

/** Which of a batch's jobs are enqueued: all, or those whose payload's person has a push device. */
export type EnqueueFor = "all" | "person-with-device";

/**
 * A payload's `userId` has at least one push subscription. Checked inside the enqueueing
 * statement itself: a person without a device costs a send no job and no statement (issue 41).
 */
const hasDevice = (pg: Sql) =>
  pg`exists (select 1 from push_subscriptions d where d.user_id = j.payload->>'userId')`;

/** graphile-worker's own default: a job that throws is retried with backoff this many times. */
const MAX_ATTEMPTS = 25;

/**
 * A keyed job's existing row is locked before `add_job` runs. Without that, graphile-worker's
 * `add_job` can lose the add: it first re-keys a job that is running, then inserts with
 * `on conflict (key) do update … where locked_at is null`; a worker that takes the existing job
 * between those two steps makes the insert do nothing, and the running job started before this
 * transaction's data committed (a drain that never sees the event it was woken for). Holding the
 * row first, a worker either takes it after this transaction commits (and sees its data) or
 * took it before, and then `add_job` re-keys it and inserts a new job.
 */
const holdKeyed = (pg: Sql) => pg`held as (
  select 1 from graphile_worker._private_jobs
  where key in (select key from j where key is not null)
  order by key for update
)`;

export function enqueueJob<N extends JobName>(
  db: Executor,
  name: N,
  payload: JobPayload<N>,
  options: EnqueueOptions = {},
  only: EnqueueFor = "all",
): Promise<void> {
  return enqueueJobs(db, name, [{ payload, ...options }], only);
}

/**
 * Many jobs of one task in one statement (none: no statement at all). Each payload is its own
 * `json` parameter: Postgres refuses to take apart JSON holding `\u0000`, and an agent's text
 * may hold it.
 */
export async function enqueueJobs<N extends JobName>(
  db: Executor,
  name: N,
  jobs: ({ payload: JobPayload<N> } & EnqueueOptions)[],
  only: EnqueueFor = "all",
): Promise<void> {
  if (jobs.length === 0) return;
  const pg = clientOf(db);
  await pg`${enqueueSelect(pg, name, jobs, only)}`;
}

/**
 * The statement `enqueueJobs` runs, as a query to use as a CTE of another statement (a message's
 * insert enqueues its push without a round trip of its own). Answers one row per job added.
 * postgres.js's own template (decision 0075), built on `pg`, the client it will run on.
 */
export function enqueueSelect<N extends JobName>(
  pg: Sql,
  name: N,
  jobs: ({ payload: JobPayload<N> } & EnqueueOptions)[],
  only: EnqueueFor = "all",
): PendingQuery<Row[]> {
  const rows = jobs.map(
    (job) => pg`(${JSON.stringify(job.payload)}::json, ${job.queue ?? null}::text,
      ${job.jobKey ?? null}::text, ${job.runAt?.toISOString() ?? null}::timestamptz,
      ${job.maxAttempts ?? MAX_ATTEMPTS}::int, ${job.keyMode ?? "replace"}::text)`,
  );
  const values = rows.reduce((list, row) => pg`${list}, ${row}`);
  return pg`with j(payload, queue, key, run_at, max_attempts, key_mode) as (
    values ${values}
  ), ${holdKeyed(pg)}
  select graphile_worker.add_job(
    ${name},
    j.payload,
    queue_name => j.queue,
    run_at => j.run_at,
    max_attempts => j.max_attempts,
    job_key => j.key,
    job_key_mode => j.key_mode
  ) from j, (select count(*) from held) as h${only === "person-with-device" ? pg` where ${hasDevice(pg)}` : pg``}`;
}

/** Drops a keyed job that has not started yet (a deleted record's due timer, say). */
export async function cancelJob(db: Executor, jobKey: string): Promise<void> {
  await db.execute(sql`select graphile_worker.remove_job(${jobKey})`);
}
