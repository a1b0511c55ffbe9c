import {
  bigint,
  bigserial,
  boolean,
  index,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { users } from "./identity";

/**
 * Email: internal threads between users (no SMTP). A thread has a subject and two participants
 * (1:1: a person and an agent, or two people) or three or more (a group, started by a person).
 * Unlike the 1:1 chat there may be any number of threads between the same two users.
 */
export const emailThreads = pgTable(
  "email_threads",
  {
    id: text().primaryKey(),
    subject: text().notNull(),
    /** Three or more participants; the Agent API does not list or open these. */
    isGroup: boolean().notNull(),
    /** Who wrote the first email; the subject masking depends on it. */
    startedById: text().references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    lastMessageAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("email_threads_last_message_idx").on(t.lastMessageAt)],
);

/** Who is in a thread, and how far each has read it (their own unread count). */
export const emailParticipants = pgTable(
  "email_participants",
  {
    threadId: text()
      .notNull()
      .references(() => emailThreads.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    joinedAt: timestamp({ withTimezone: true }).notNull(),
    /** `email_messages.pos` of the newest email read; 0 when none. */
    lastReadPos: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.threadId, t.userId] }),
    index("email_participants_user_idx").on(t.userId),
  ],
);

export const emailMessages = pgTable(
  "email_messages",
  {
    /** Insertion order: the order of a thread and the read marks, never the clock. */
    pos: bigserial({ mode: "number" }).notNull().unique(),
    id: text().primaryKey(),
    threadId: text()
      .notNull()
      .references(() => emailThreads.id, { onDelete: "cascade" }),
    senderId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    content: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    index("email_messages_thread_pos_idx").on(t.threadId, t.pos),
    index("email_messages_thread_sender_idx").on(t.threadId, t.senderId, t.createdAt),
  ],
);
