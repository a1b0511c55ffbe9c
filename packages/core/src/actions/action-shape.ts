import {
  type ActionRejection,
  type AgentAction,
  type AgentActionExecution,
  AgentPlatformSkill,
} from "@switchboard/contract";
import type { schema } from "@switchboard/db";

export type ActionRow = typeof schema.actions.$inferSelect;

export function toAgentAction(row: ActionRow): AgentAction {
  return {
    id: row.id,
    conversationId: row.conversationId,
    userId: row.userId,
    kind: row.kind,
    title: row.title,
    description: row.description,
    payload: row.payload,
    editedPayload: row.editedPayload,
    state: row.state,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    resolvedAt: row.resolvedAt?.toISOString() ?? null,
    skill: skillOf(row),
    execution: (row.execution as AgentActionExecution | null) ?? null,
    ...(row.state === "rejected" && { rejection: rejectionOf(row) }),
  };
}

/** Why a rejected proposal was rejected, as far as the person said (null fields when not). */
export function rejectionOf(
  row: Pick<ActionRow, "rejectionReason" | "rejectionChoice">,
): ActionRejection {
  return { reason: row.rejectionReason, choice: row.rejectionChoice };
}

/** The platform skill a stored proposal runs (the column is plain text), or null for a custom one. */
export function skillOf(row: Pick<ActionRow, "skill">): AgentPlatformSkill | null {
  return row.skill === null ? null : AgentPlatformSkill.parse(row.skill);
}
