import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";

export const eventsSeq = pgSequence("events_seq");

/**
 * The event log. `seq` is global and assigned under a transaction-level advisory lock taken
 * right before the insert (see core/events/append-event.ts), so seq order equals commit order
 * and a reader of "seq > cursor" can never skip a row that commits later.
 *
 * Partitioned by range of `ts` (migration 0019, decision 0047): drizzle cannot declare that, so
 * the migration does, and core/maintenance/event-partitions.ts adds partitions ahead and drops
 * them past the retention. A partitioned table's keys must include `ts`, hence (seq, ts) and
 * (id, ts); seq and id stay unique on their own because seq comes from one sequence and id is
 * random.
 */
export const events = pgTable(
  "events",
  {
    seq: bigint({ mode: "number" }).notNull().default(sql`nextval('events_seq')`),
    id: text().notNull(),
    agentId: text().notNull(),
    /**
     * The person the event is about (sender, adder, record owner), or null. Payloads are stored
     * whole; what the agent sees of them is decided when events are read, by this person's
     * standing with the agent at that moment (core/events/event-visibility.ts). No foreign key:
     * an event about a person who is gone stays, and reads as nothing granted.
     */
    personId: text(),
    type: text().notNull(),
    ts: timestamp({ withTimezone: true }).notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.seq, t.ts] }),
    unique().on(t.id, t.ts),
    index("events_agent_seq_idx").on(t.agentId, t.seq),
  ],
);
