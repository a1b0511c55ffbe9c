import { sql } from "drizzle-orm";
import { index, jsonb, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { conversations } from "./conversations";
import { agents, users } from "./identity";

export const actionState = pgEnum("action_state", ["pending", "approved", "rejected", "expired"]);

/**
 * Where a proposal was decided: the console's card, the CLI, the person's auto-execute setting,
 * the expiry timer, or the person removing the agent (its pending proposals are rejected).
 */
export const actionDecidedVia = pgEnum("action_decided_via", [
  "console",
  "cli",
  "auto_execute",
  "expiry",
  "contact_removed",
]);

/** A person's quick answer to why they rejected a card (the contract's RejectionChoice). */
export const rejectionChoice = pgEnum("rejection_choice", ["not_now", "wrong_details", "never"]);

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
    // The audit trail of the decision, written with it (console only, never on the Agent API):
    // `resolvedAt` is when, `payload` what was proposed.
    /** The person who decided; null when nobody did (expiry, auto-execute) or before this was kept. */
    decidedBy: text().references(() => users.id, { onDelete: "set null" }),
    decidedVia: actionDecidedVia(),
    /** What ran or what the agent was told to do: the edited payload, else the proposed one. */
    approvedPayload: jsonb().$type<Record<string, unknown>>(),
    // Why the person rejected it, when they said (the agent sees both as `action.rejection`).
    rejectionReason: text(),
    rejectionChoice: rejectionChoice(),
  },
  (t) => [
    index("actions_agent_created_idx").on(t.agentId, t.createdAt),
    index("actions_conversation_state_idx").on(t.conversationId, t.state),
    // A person's decisions, newest first (their export), and the agent page's list.
    index("actions_user_resolved_idx").on(t.userId, t.resolvedAt),
    index("actions_agent_resolved_idx").on(t.agentId, t.resolvedAt),
    // The records page finds the card that created a record.
    index("actions_record_idx")
      .on(sql`(${t.execution}->>'recordId')`)
      .where(sql`${t.execution} is not null`),
  ],
);
