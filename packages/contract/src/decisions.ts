import { z } from "zod";
import { ActionRejection, AgentActionExecution, AgentPlatformSkill } from "./actions";
import { DateTime } from "./common";

/**
 * The audit trail of approval decisions, as the console shows it (never on the Agent API: the
 * agent's `AgentAction` is the spec's and does not change).
 */

/** Where a proposal was decided. */
export const DecidedVia = z.enum(["console", "cli", "auto_execute", "expiry", "contact_removed"]);
export type DecidedVia = z.infer<typeof DecidedVia>;

export const DecisionOutcome = z.enum(["approved", "rejected", "expired"]);
export type DecisionOutcome = z.infer<typeof DecisionOutcome>;

/** How a card was decided: when, from where, by whom, and how many fields the approver changed. */
export const ActionDecision = z.object({
  outcome: DecisionOutcome,
  at: DateTime,
  /** Null for a card decided before the audit trail was kept. */
  via: DecidedVia.nullable(),
  /** The person who decided; null when nobody did (expiry, auto-execute) or it is not known. */
  decidedBy: z.string().nullable(),
  /** Payload fields the approval changed (0 when approved as proposed or not approved). */
  changes: z.number().int(),
  /** The person's why, on a rejection (null otherwise). */
  rejection: ActionRejection.nullable(),
});
export type ActionDecision = z.infer<typeof ActionDecision>;

const Party = z.object({ id: z.string(), num: z.string(), displayName: z.string().nullable() });

/** One decision in an agent's list on its owner's page (no payloads: those are the person's). */
export const AgentDecision = ActionDecision.extend({
  actionId: z.string(),
  title: z.string(),
  kind: z.string(),
  skill: AgentPlatformSkill.nullable(),
  person: Party,
});
export type AgentDecision = z.infer<typeof AgentDecision>;

/** The counts on an agent's page; `edited` are approvals with changes, not among `approved`. */
export const DecisionCounts = z.object({
  approved: z.number().int(),
  edited: z.number().int(),
  rejected: z.number().int(),
  expired: z.number().int(),
});
export type DecisionCounts = z.infer<typeof DecisionCounts>;

/** One of a person's decisions as they export it: the whole card, proposed and approved. */
export const PersonDecision = ActionDecision.extend({
  actionId: z.string(),
  conversationId: z.string(),
  cardMessageId: z.string().nullable(),
  agent: Party,
  title: z.string(),
  description: z.string().nullable(),
  kind: z.string(),
  skill: AgentPlatformSkill.nullable(),
  proposedAt: DateTime,
  proposedPayload: z.record(z.string(), z.unknown()),
  approvedPayload: z.record(z.string(), z.unknown()).nullable(),
  execution: AgentActionExecution.nullable(),
});
export type PersonDecision = z.infer<typeof PersonDecision>;

/** Keyset position in a list of decisions, newest first. */
export const DecisionCursor = z.object({ at: DateTime, actionId: z.string().min(1).max(64) });
export type DecisionCursor = z.infer<typeof DecisionCursor>;

/** The card that created a record (records page: "from a card in your chat with …"). */
export const RecordCard = z.object({
  recordId: z.string(),
  actionId: z.string(),
  conversationId: z.string(),
  cardMessageId: z.string().nullable(),
  agent: Party,
  auto: z.boolean(),
});
export type RecordCard = z.infer<typeof RecordCard>;
