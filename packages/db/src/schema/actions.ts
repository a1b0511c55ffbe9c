import { index, jsonb, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { conversations } from "./conversations";
import { agents, users } from "./identity";

export const actionState = pgEnum("action_state", ["pending", "approved", "rejected", "expired"]);

/** Proposals: what an agent asks a person to approve on a card in their 1:1 chat. */
export const actions = pgTable(
  "actions",
  {
    id: text().primaryKey(),
    agentId: text()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    conversationId: text()
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    /** The only user who may decide. */
    userId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text().notNull(),
    title: text().notNull(),
    description: text(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    editedPayload: jsonb().$type<Record<string, unknown>>(),
    state: actionState().notNull(),
    skill: text(),
    /** AgentActionExecution, for platform skills once run. */
    execution: jsonb().$type<Record<string, unknown>>(),
    /** The approval card: the message that carries this proposal. */
    cardMessageId: text(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
    resolvedAt: timestamp({ withTimezone: true }),
  },
  (t) => [
    index("actions_agent_created_idx").on(t.agentId, t.createdAt),
    index("actions_conversation_state_idx").on(t.conversationId, t.state),
  ],
);
