import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Job-queue workers that are alive: each worker process stamps its graphile-worker ids here
 * every few seconds. A job lock is a dead worker's (and is released) only when its worker has
 * not been seen for JOB_LOCK_STALE_S, however long the job itself takes.
 */
export const jobWorkerHeartbeats = pgTable("job_worker_heartbeats", {
  workerId: text().primaryKey(),
  seenAt: timestamp({ withTimezone: true }).notNull(),
});
