import {
  bigint,
  bigserial,
  index,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { conversations } from "./conversations";
import { users } from "./identity";

export const messageType = pgEnum("message_type", [
  "text",
  "voice",
  "image",
  "video",
  "location",
  "contact",
  "document",
  "sticker",
]);

export const messages = pgTable(
  "messages",
  {
    /** Insertion order; history pages and cursors use it, never the clock. */
    pos: bigserial({ mode: "number" }).notNull().unique(),
    id: text().primaryKey(),
    conversationId: text()
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    senderId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: messageType().notNull(),
    content: text().notNull(),
    replyToId: text(),
    agentActionId: text(),
    /** The type's media group (`audio`, `image`, `video`, `location`, `document`, `sharedContact`). */
    media: jsonb().$type<Record<string, unknown>>(),
    transcript: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("messages_conversation_pos_idx").on(t.conversationId, t.pos)],
);

/** How far each member has read a conversation (read receipts). */
export const conversationReads = pgTable(
  "conversation_reads",
  {
    conversationId: text()
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `messages.pos` of the newest message read. */
    lastReadPos: bigint({ mode: "number" }).notNull(),
    readAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.userId] })],
);

/** Typing indicators; each one ends by itself at `until`. */
export const typingIndicators = pgTable(
  "typing_indicators",
  {
    conversationId: text()
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    until: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.userId] })],
);

export const reactions = pgTable(
  "reactions",
  {
    messageId: text()
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    emoji: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId, t.emoji] })],
);

/**
 * Replies an agent is streaming over the WebSocket: the text so far, visible to the person
 * live. `reply.end` turns the row into a stored message with the same id; `reply.abort`
 * and the idle end remove it.
 */
export const replyStreams = pgTable(
  "reply_streams",
  {
    /** The id the stored message will carry (`reply.started.messageId`). */
    messageId: text().primaryKey(),
    /** The agent's own name for the reply, unique per connection. */
    streamId: text().notNull(),
    /** The WebSocket connection (its lease) that owns the reply. */
    connectionId: text().notNull(),
    conversationId: text()
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    senderId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    text: text().notNull().default(""),
    startedAt: timestamp({ withTimezone: true }).notNull(),
    lastDeltaAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("reply_streams_conversation_idx").on(t.conversationId)],
);
