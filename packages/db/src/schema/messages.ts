import { bigserial, index, jsonb, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
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
