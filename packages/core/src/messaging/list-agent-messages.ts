import type { AgentHistoryQuery, AgentMessage } from "@switchboard/contract";
import { type Db, schema } from "@switchboard/db";
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { preparedQuery } from "../prepared-query";
import { toAgentMessage } from "../sending/compose-message";

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
  const limit = query.limit + 1; // one more than the page, to know there are more
  const rows = query.before
    ? await pageBefore(deps.db).execute({
        conversationId,
        beforePos: await positionOf(deps, conversationId, query.before),
        limit,
      })
    : await newestPage(deps.db).execute({ conversationId, limit });
  const page = rows.slice(0, query.limit).reverse();
  return {
    rows: page,
    messages: page.map((r) => toAgentMessage(r.message, r.senderNum)),
    hasMore: rows.length > query.limit,
  };
}

const conversationIs = eq(messages.conversationId, sql.placeholder("conversationId"));

async function positionOf(deps: CoreDeps, conversationId: string, id: string): Promise<number> {
  const [anchor] = await messagePosition(deps.db).execute({ conversationId, id });
  if (!anchor) throw new CoreError("not_found", `No message ${id} in this conversation`);
  return anchor.pos;
}

const messagePosition = preparedQuery((db) =>
  db
    .select({ pos: messages.pos })
    .from(messages)
    .where(and(eq(messages.id, sql.placeholder("id")), conversationIs))
    .prepare("message_position"),
);

/** Newest first. */
const newestFirst = (db: Db, before: SQL | undefined) =>
  db
    .select({ message: messages, senderNum: users.num })
    .from(messages)
    .innerJoin(users, eq(users.id, messages.senderId))
    .where(and(conversationIs, before))
    .orderBy(desc(messages.pos))
    .limit(sql.placeholder("limit"));

const newestPage = preparedQuery((db) => newestFirst(db, undefined).prepare("message_page"));
const pageBefore = preparedQuery((db) =>
  newestFirst(db, lt(messages.pos, sql.placeholder("beforePos"))).prepare("message_page_before"),
);
