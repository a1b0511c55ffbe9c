import { boolean, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./identity";

/** An ended call between people, as the call system reported it; the transcript is shared. */
export const calls = pgTable("calls", {
  id: text().primaryKey(),
  isGroup: boolean().notNull(),
  startedAt: timestamp({ withTimezone: true }).notNull(),
  endedAt: timestamp({ withTimezone: true }).notNull(),
  /** Seconds. */
  duration: integer().notNull(),
  /** Null when the call could not be transcribed. */
  transcript: text(),
  createdAt: timestamp({ withTimezone: true }).notNull(),
});

/** Who was on a call, each with their own summary. */
export const callParticipants = pgTable(
  "call_participants",
  {
    callId: text()
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Joined order, so every view lists people the same way. */
    position: integer().notNull(),
    summary: text(),
  },
  (t) => [
    primaryKey({ columns: [t.callId, t.userId] }),
    index("call_participants_user_idx").on(t.userId, t.callId),
  ],
);
