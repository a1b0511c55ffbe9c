import type { AgentConversationsResponse, AgentScope, PageQuery } from "@switchboard/contract";
import { inConsentOrder } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { agentUserColumns, toAgentUser } from "../identity/users";
import { keyOfRow, newestFirst, type OrderKey, olderThan } from "../paging";

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
  const order: OrderKey = [
    sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`,
    conversations.id,
  ];
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
    after = olderThan(order, keyOfRow(conversations, order, page.before));
  }
  const rows = await deps.db
    .select({ contact: agentContacts, conversation: conversations, person: agentUserColumns })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .innerJoin(users, eq(users.id, agentContacts.userId))
    .where(and(eq(agentContacts.agentId, agentId), after))
    .orderBy(...newestFirst(order))
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
