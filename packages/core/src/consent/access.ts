import type { AgentScope, AgentUser } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { toAgentUser } from "../identity/users";
import { recordRefusedSend } from "../limits/charge-send";

const { agentContacts, conversations, conversationMembers, users } = schema;

export const REPLY_WINDOW_MS = 24 * 3600_000;

/** What an agent may do toward one person right now, read fresh on every call. */
export interface AgentAccess {
  person: AgentUser;
  conversationId: string;
  grantedScopes: AgentScope[];
}

export interface AccessNeed {
  scope: AgentScope;
  /** Sends and proposals start something: they also need a `reply_only` person's open window. */
  initiating?: boolean;
}

const refusedSendCodes = new Set([
  "not_a_contact",
  "scope_not_granted",
  "reply_window_closed",
  "blocked",
]);

/**
 * The one consent check of every agent call toward a person (send, history, receipts, typing,
 * reactions, proposals, streamed replies). Resolves the person by `to` or the conversation, then
 * refuses in a fixed order: recipient_suspended, blocked, not_a_contact, scope_not_granted,
 * reply_window_closed. A refused initiating call counts toward the daily refused-send ceiling.
 */
export async function checkAgentAccess(
  deps: CoreDeps,
  agentId: string,
  target: { to?: string; conversationId?: string },
  need: AccessNeed,
): Promise<AgentAccess> {
  try {
    return await decide(deps, agentId, target, need);
  } catch (error) {
    if (need.initiating && error instanceof CoreError && refusedSendCodes.has(error.code))
      await recordRefusedSend(deps, agentId);
    throw error;
  }
}

async function decide(
  deps: CoreDeps,
  agentId: string,
  target: { to?: string; conversationId?: string },
  need: AccessNeed,
): Promise<AgentAccess> {
  let personWhere = target.to ? eq(users.num, target.to) : undefined;
  if (target.conversationId) {
    const [conversation] = await deps.db
      .select({
        kind: conversations.kind,
        members: sql<
          string[]
        >`(select array_agg(${conversationMembers.userId}) from ${conversationMembers} where ${conversationMembers.conversationId} = ${conversations.id})`,
      })
      .from(conversations)
      .where(eq(conversations.id, target.conversationId));
    if (!conversation) throw new CoreError("not_found", `No conversation ${target.conversationId}`);
    const members = conversation.members ?? [];
    if (conversation.kind !== "direct" || !members.includes(agentId))
      throw new CoreError("forbidden", "The agent is not a participant of this 1:1 conversation");
    personWhere = eq(users.id, members.find((id) => id !== agentId) ?? "");
  }
  if (!personWhere)
    throw new CoreError("validation_error", "give exactly one of to or conversationId");

  const [row] = await deps.db
    .select({ user: users, contact: agentContacts })
    .from(users)
    .leftJoin(
      agentContacts,
      and(eq(agentContacts.userId, users.id), eq(agentContacts.agentId, agentId)),
    )
    .where(personWhere);
  if (!row) throw new CoreError("not_found", `No user ${target.to}`);
  const { user, contact } = row;
  if (user.suspendedAt)
    throw new CoreError("recipient_suspended", "This person's account is suspended");
  if (contact?.blockedAt) throw new CoreError("blocked", "This person has blocked the agent");
  if (!contact?.addedAt)
    throw new CoreError("not_a_contact", "This person has not added the agent as a contact");
  const granted = contact.grantedScopes as AgentScope[];
  if (!granted.includes(need.scope))
    throw new CoreError("scope_not_granted", `This person has not granted ${need.scope}`, {
      scope: need.scope,
    });
  if (need.initiating && contact.initiation === "reply_only") {
    const last = contact.lastInboundAt?.getTime() ?? Number.NEGATIVE_INFINITY;
    if (deps.clock.now().getTime() - last > REPLY_WINDOW_MS)
      throw new CoreError(
        "reply_window_closed",
        "This person takes replies only, within 24 h of their last message to the agent",
      );
  }
  return {
    person: toAgentUser(user),
    conversationId: contact.conversationId,
    grantedScopes: granted,
  };
}
