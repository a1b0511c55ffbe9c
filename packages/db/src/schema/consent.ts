import { sql } from "drizzle-orm";
import { index, pgEnum, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { conversations } from "./conversations";
import { agents, users } from "./identity";

export const initiation = pgEnum("initiation", ["any", "reply_only"]);

/**
 * A person's standing with one agent: whether the agent is in their contacts, what they granted
 * on the consent card, and their per-agent settings. The row outlives a removed contact (a block
 * must survive removal); `addedAt` is null while the agent is not a contact, and removal clears
 * the grant. No row, or no grant, means nothing is granted.
 */
export const agentContacts = pgTable(
  "agent_contacts",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    /**
     * Their 1:1 conversation, made when the person first adds the agent and kept across
     * remove/re-add so history stays in one place; null while they never added it (a block or
     * reply-only setting alone makes no conversation the agent could see).
     */
    conversationId: text().references(() => conversations.id, { onDelete: "cascade" }),
    addedAt: timestamp({ withTimezone: true }),
    grantedScopes: text().array().notNull().default(sql`'{}'::text[]`),
    initiation: initiation().notNull().default("any"),
    blockedAt: timestamp({ withTimezone: true }),
    /**
     * The person's last message to the agent in their 1:1 chat; opens the 24 h reply window
     * (an email reply's window also opens from their last email in that thread).
     */
    lastInboundAt: timestamp({ withTimezone: true }),
    /** Create skills the person lets this agent run without a card (issue: proposals). */
    autoExecuteSkills: text().array().notNull().default(sql`'{}'::text[]`),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    updatedAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.agentId] }),
    index("agent_contacts_agent_idx").on(t.agentId),
    index("agent_contacts_conversation_idx").on(t.conversationId),
  ],
);

/** Person-to-person contacts; `contacts_of_contacts` request privacy is decided over them. */
export const userContacts = pgTable(
  "user_contacts",
  {
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    contactId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.contactId] }),
    index("user_contacts_contact_idx").on(t.contactId),
  ],
);
