import type { AgentHistoryQuery, AgentMessage } from "@switchboard/contract";
import { type Db, schema } from "@switchboard/db";
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { JsonText } from "../json-text";
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

/**
 * `listAgentMessages`' answer as the JSON text the route sends, the same bytes
 * `JSON.stringify(await listAgentMessages(…))` makes (issue 41): Postgres reads only the wire
 * fields and writes each message's JSON itself (its time already ISO text: no Date decoded and
 * encoded again), so the web process decodes one text per row, not a dozen columns, and maps
 * and serialises nothing but a media group (jsonb's own text is spaced, the wire's is compact).
 */
export async function listAgentMessagesJson(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  query: AgentHistoryQuery,
): Promise<JsonText<{ messages: AgentMessage[]; hasMore: boolean }>> {
  await checkAgentAccess(deps, agentId, { conversationId }, { scope: "messages:read" });
  const limit = query.limit + 1; // one more than the page, to know there are more
  const rows = query.before
    ? await deps.sql<WireRow[]>`${wireSelect(deps)}
        where m.conversation_id = ${conversationId}
          and m.pos < ${await positionOf(deps, conversationId, query.before)}
        order by m.pos desc limit ${limit}`
    : await deps.sql<WireRow[]>`${wireSelect(deps)}
        where m.conversation_id = ${conversationId} order by m.pos desc limit ${limit}`;
  const page = rows.slice(0, query.limit).reverse();
  const items = page.map(
    // head: `{"id":…,"createdAt":…` open; the media group's members (toAgentMessage spreads
    // them after createdAt) and a voice note's transcript close it.
    ({ head, media, tail }) =>
      `${head}${media ? `,${JSON.stringify(JSON.parse(media)).slice(1, -1)}` : ""}${tail}}`,
  );
  return new JsonText(`{"messages":[${items.join(",")}],"hasMore":${rows.length > query.limit}}`);
}

interface WireRow {
  head: string;
  media: string | null;
  tail: string;
}

/** The wire fields of a message, in toAgentMessage's order, as compact JSON (row_to_json). */
const wireSelect = (deps: CoreDeps) => deps.sql`
  select left(row_to_json(w)::text, -1) as head,
    case when m.media is null or m.media = '{}'::jsonb then null else m.media::text end as media,
    case when m.type = 'voice' and m.transcript is not null
      then ',"transcript":' || to_json(m.transcript)::text else '' end as tail
  from messages m join users u on u.id = m.sender_id
  cross join lateral (select m.id as "id", m.conversation_id as "conversationId",
    m.sender_id as "senderId", u.num as "senderNum", m.type as "type", m.content as "content",
    m.reply_to_id as "replyToId", m.agent_action_id as "agentActionId",
    to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt") w`;

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
