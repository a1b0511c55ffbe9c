import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { users } from "./identity";

export const webhookState = pgEnum("webhook_state", ["active", "disabled"]);

/** An agent's one webhook. The secret signs deliveries, so it is kept (not hashed). */
export const webhooks = pgTable("webhooks", {
  agentId: text()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  url: text().notNull(),
  secret: text().notNull(),
  /** During the rotation grace the previous secret signs too. */
  previousSecret: text(),
  rotationGraceUntil: timestamp({ withTimezone: true }),
  state: webhookState().notNull().default("active"),
  consecutiveFailures: integer().notNull().default(0),
  lastDeliveryAt: timestamp({ withTimezone: true }),
  lastSuccessAt: timestamp({ withTimezone: true }),
  lastFailureAt: timestamp({ withTimezone: true }),
  lastError: text(),
  createdAt: timestamp({ withTimezone: true }).notNull(),
  updatedAt: timestamp({ withTimezone: true }).notNull(),
});

export const deliveryStatus = pgEnum("delivery_status", ["pending", "succeeded", "failed", "dead"]);

/** One event's delivery to a webhook: its latest attempt and what comes next. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    agentId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    eventId: text().notNull(),
    eventSeq: bigint({ mode: "number" }).notNull(),
    eventType: text().notNull(),
    status: deliveryStatus().notNull().default("pending"),
    /** Attempts made so far. */
    attempts: integer().notNull().default(0),
    httpStatus: integer(),
    latencyMs: integer(),
    error: text(),
    /** When the latest attempt started, the headers it sent, and the start of the answer. */
    attemptedAt: timestamp({ withTimezone: true }),
    requestHeaders: jsonb().$type<Record<string, string>>(),
    responseExcerpt: text(),
    nextAttemptAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_idx").on(t.agentId, t.eventId),
    index("webhook_deliveries_agent_seq_idx").on(t.agentId, t.eventSeq),
    // A drain's read: the agent's pending deliveries in seq order, without walking past every
    // delivery the agent ever had.
    index("webhook_deliveries_pending_idx")
      .on(t.agentId, t.eventSeq)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/**
 * Who drains an agent's webhook deliveries right now (decision 0055): one worker process at a
 * time per agent, so its events go out in order. `holder` is the process's id (null: nobody),
 * stamped alive in `job_worker_heartbeats`; a lease whose holder has not been seen for
 * JOB_LOCK_STALE_S is free to take. `again`: another process was woken for this agent while the
 * lease was held, so the holder reads once more before it lets go. A row stays once written:
 * taking and letting go are updates of it.
 */
export const webhookDrainLeases = pgTable("webhook_drain_leases", {
  agentId: text()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  holder: text(),
  again: boolean().notNull().default(false),
});
