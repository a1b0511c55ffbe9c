import type { AgentConversation, AgentScope } from "@switchboard/contract";
import { inConsentOrder } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { desc, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { agentUserColumns, toAgentUser } from "../identity/users";

const { agentContacts, conversations, users } = schema;

/**
 * `GET /conversations`: every 1:1 conversation of the agent, newest activity first (last
 * message, else creation), never hidden, with the participant's grant and initiation policy as
 * they are now. A person who removed the agent shows with `grantedScopes: []`. Needs no grant.
 */
export async function listAgentConversations(
  deps: CoreDeps,
  agentId: string,
): Promise<AgentConversation[]> {
  const rows = await deps.db
    .select({ contact: agentContacts, conversation: conversations, person: agentUserColumns })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .innerJoin(users, eq(users.id, agentContacts.userId))
    .where(eq(agentContacts.agentId, agentId))
    .orderBy(
      desc(sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`),
      desc(conversations.id),
    );
  return rows.map(({ contact, conversation, person }) => ({
    id: conversation.id,
    participant: toAgentUser(person),
    grantedScopes: contact.addedAt ? inConsentOrder(contact.grantedScopes as AgentScope[]) : [],
    initiation: contact.initiation,
    lastMessageAt: conversation.lastMessageAt?.toISOString() ?? null,
    createdAt: conversation.createdAt.toISOString(),
  }));
}
