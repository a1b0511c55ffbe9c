import { sql } from "drizzle-orm";
import {
  index,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { users } from "./identity";

export const conversationKind = pgEnum("conversation_kind", ["self", "direct", "group"]);

export const conversations = pgTable(
  "conversations",
  {
    id: text().primaryKey(),
    kind: conversationKind().notNull(),
    /**
     * Identifies a self or direct conversation by its members, so there is exactly one per pair:
     * the member ids sorted and joined with ":" (one id for a self chat). Null for groups.
     */
    memberKey: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    lastMessageAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    uniqueIndex("conversations_member_key").on(t.memberKey).where(sql`${t.memberKey} is not null`),
  ],
);

export const conversationMembers = pgTable(
  "conversation_members",
  {
    conversationId: text()
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    joinedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.userId] }),
    index("conversation_members_user_idx").on(t.userId),
  ],
);
