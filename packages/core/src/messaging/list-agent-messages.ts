import type { AgentHistoryQuery, AgentMessage } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, lt } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { toAgentMessage } from "./compose-message";

const { messages, users } = schema;

/**
 * `GET /conversations/{id}/messages`: needs the person's `messages:read`. A page of at most
 * `limit` messages, oldest first within the page; `before` (a message id of this conversation)
 * pages back from that message; `hasMore` says older ones exist. Order is insertion order.
 */
export async function listAgentMessages(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  query: AgentHistoryQuery,
): Promise<{ messages: AgentMessage[]; hasMore: boolean }> {
  await checkAgentAccess(deps, agentId, { conversationId }, { scope: "messages:read" });
  const { messages, hasMore } = await readMessagePage(deps, conversationId, query);
  return { messages, hasMore };
}

/** One page of a conversation's messages with their senders' numbers. */
export async function readMessagePage(
  deps: CoreDeps,
  conversationId: string,
  query: { limit: number; before?: string },
) {
  let beforePos: number | undefined;
  if (query.before) {
    const [anchor] = await deps.db
      .select({ pos: messages.pos })
      .from(messages)
      .where(and(eq(messages.id, query.before), eq(messages.conversationId, conversationId)));
    if (!anchor)
      throw new CoreError("not_found", `No message ${query.before} in this conversation`);
    beforePos = anchor.pos;
  }
  const rows = await deps.db
    .select({ message: messages, senderNum: users.num })
    .from(messages)
    .innerJoin(users, eq(users.id, messages.senderId))
    .where(
      and(
        eq(messages.conversationId, conversationId),
        beforePos === undefined ? undefined : lt(messages.pos, beforePos),
      ),
    )
    .orderBy(desc(messages.pos))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit).reverse();
  return {
    rows: page,
    messages: page.map((r) => toAgentMessage(r.message, r.senderNum)),
    hasMore: rows.length > query.limit,
  };
}
