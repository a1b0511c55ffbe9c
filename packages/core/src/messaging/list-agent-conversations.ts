import type { AgentConversationsResponse, AgentScope, PageQuery } from "@switchboard/contract";
import { inConsentOrder } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { agentUserColumns, toAgentUser } from "../identity/users";

const { agentContacts, conversations, users } = schema;

/**
 * `GET /conversations`: the agent's 1:1 conversations, newest activity first (last message,
 * else creation), never hidden, with the participant's grant and initiation policy as they are
 * now. A person who removed the agent shows with `grantedScopes: []`. Needs no grant. A page of
 * `limit` at a time, after the conversation `before` (404 unless it is one of the agent's).
 */
export async function listAgentConversations(
  deps: CoreDeps,
  agentId: string,
  page: PageQuery = { limit: 50 },
): Promise<AgentConversationsResponse> {
  const activity = sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`;
  let after: SQL | undefined;
  if (page.before !== undefined) {
    const [anchor] = await deps.db
      .select({ id: agentContacts.conversationId })
      .from(agentContacts)
      .where(
        and(eq(agentContacts.agentId, agentId), eq(agentContacts.conversationId, page.before)),
      );
    if (!anchor) throw new CoreError("not_found", `No conversation ${page.before}`);
    // Compared in the database: the timestamps keep microseconds a Date would drop.
    after = sql`(${activity}, ${conversations.id}) < (select coalesce(c.last_message_at, c.created_at), c.id from conversations c where c.id = ${page.before})`;
  }
  const rows = await deps.db
    .select({ contact: agentContacts, conversation: conversations, person: agentUserColumns })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .innerJoin(users, eq(users.id, agentContacts.userId))
    .where(and(eq(agentContacts.agentId, agentId), after))
    .orderBy(desc(activity), desc(conversations.id))
    .limit(page.limit + 1); // one more than the page, to know there are more
  return {
    conversations: rows.slice(0, page.limit).map(({ contact, conversation, person }) => ({
      id: conversation.id,
      participant: toAgentUser(person),
      grantedScopes: contact.addedAt ? inConsentOrder(contact.grantedScopes as AgentScope[]) : [],
      initiation: contact.initiation,
      lastMessageAt: conversation.lastMessageAt?.toISOString() ?? null,
      createdAt: conversation.createdAt.toISOString(),
    })),
    hasMore: rows.length > page.limit,
  };
}
