import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Fixed-window counters for rate limits, shared by every process. UNLOGGED (migration 0018),
 * like the two lease tables below: written on every request, worth a minute, so no WAL; a crash
 * empties them.
 */
export const rateCounters = pgTable(
  "rate_counters",
  {
    key: text().notNull(),
    windowStart: timestamp({ withTimezone: true }).notNull(),
    count: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/**
 * Long-polls parked right now, so the per-agent cap holds across processes. Each row is a lease
 * that ends by itself (`expiresAt`) if its process dies before removing it.
 */
export const parkedPolls = pgTable(
  "parked_polls",
  {
    id: text().primaryKey(),
    agentId: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("parked_polls_agent_idx").on(t.agentId)],
);

/**
 * Per-agent counts for one UTC day: what the daily ceilings are checked against, and what the
 * console's usage view shows.
 */
export const agentDailyUsage = pgTable(
  "agent_daily_usage",
  {
    agentId: text().notNull(),
    /** The UTC day, as YYYY-MM-DD. */
    day: text().notNull(),
    messages: integer().notNull().default(0),
    proposals: integer().notNull().default(0),
    refused: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.day] })],
);

/**
 * Refused sends per agent, UTC day and code (`not_a_contact`, `scope_not_granted`,
 * `reply_window_closed`, `blocked`): the owner's dashboard charts them. The daily total stays in
 * `agent_daily_usage.refused`, which the ceiling is checked against.
 */
export const agentDailyRefusals = pgTable(
  "agent_daily_refusals",
  {
    agentId: text().notNull(),
    /** The UTC day, as YYYY-MM-DD. */
    day: text().notNull(),
    code: text().notNull(),
    count: integer().notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.day, t.code] })],
);

/**
 * Open WebSocket stream connections, so the per-agent cap holds across worker processes. A
 * lease is renewed by its connection's heartbeat and ends by itself if the process dies.
 */
export const streamConnections = pgTable(
  "stream_connections",
  {
    id: text().primaryKey(),
    agentId: text().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("stream_connections_agent_idx").on(t.agentId)],
);
