import type { AgentHistoryQuery, AgentMessage } from "@switchboard/contract";
import { type Db, schema } from "@switchboard/db";
import { and, desc, eq, lt, type SQL, sql } from "drizzle-orm";
import type { PendingQuery, Row, Sql } from "postgres";
import { accessRefusal, checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import type { AdmissionRead } from "../identity/agent-tokens";
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
 * `JSON.stringify(await listAgentMessages(…))` makes (issue 41), read by one statement
 * (`historyRead`) with its access check.
 */
export async function listAgentMessagesJson(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  query: AgentHistoryQuery,
): Promise<JsonText<{ messages: AgentMessage[]; hasMore: boolean }>> {
  const [row] = await deps.sql<{ history: string }[]>`
    select ${historyRead(deps.sql, agentId, { conversationId, ...query })} as history`;
  return historyAnswer(row?.history as string, { conversationId, ...query });
}

/** A history page to read: the conversation, and the route's query. */
export interface HistoryPage extends AgentHistoryQuery {
  conversationId: string;
}

type Fragment = PendingQuery<Row[]>;

/**
 * One text, as a scalar subquery: the page's whole JSON body, or the code of the refusal. It
 * checks what `checkAgentAccess` checks for `messages:read` (the conversation, the agent's
 * membership of the 1:1 chat, the person's standing with it), then finds the `before` anchor,
 * and has Postgres write the body: each message's wire JSON (the wire fields in toAgentMessage's
 * order, each value by `to_json`, the time as ISO text, the media group compacted from its jsonb),
 * the page joined oldest first, and `hasMore`. The web process reads one text and sends it as it
 * is. Written member by member rather than by `row_to_json` of a row, and with the sender's number
 * taken from the chat's two members already read rather than a join per message: that was about
 * a fifth of the statement's time in Postgres (issue 41).
 * `agent` is the agent's id, or an expression of the statement it is part of (the admission's).
 */
export function historyRead(pg: Sql, agent: string | Fragment, page: HistoryPage): Fragment {
  const { conversationId, limit } = page;
  const before = page.before ?? null;
  return pg`(
    with standing as (
      select c.kind, me.user_id as member, mu.num as member_num, p.id as person,
             p.num as person_num, ac.conversation_id as contact_chat,
             ac.blocked_at, ac.added_at, ac.granted_scopes
      from conversations c
      left join conversation_members me on me.conversation_id = c.id and me.user_id = ${agent}
      left join users mu on mu.id = me.user_id
      left join conversation_members other
        on other.conversation_id = c.id and other.user_id <> ${agent}
      left join users p on p.id = other.user_id
      left join agent_contacts ac on ac.user_id = p.id and ac.agent_id = ${agent}
      where c.id = ${conversationId}
      limit 1
    ), refusal as (
      select case
        when member is null or kind <> 'direct' or person is null then 'forbidden'
        when contact_chat is null then 'not_a_contact'
        when blocked_at is not null then 'blocked'
        when added_at is null then 'not_a_contact'
        when not ('messages:read' = any (granted_scopes)) then 'scope_not_granted'
      end as code
      from standing
    ), anchor as (
      select m.pos from messages m
      where m.id = ${before}::text and m.conversation_id = ${conversationId}
    ), page as (
      select m.pos, row_number() over (order by m.pos desc) as n,
        '{"id":' || to_json(m.id)::text
          || ',"conversationId":' || to_json(m.conversation_id)::text
          || ',"senderId":' || to_json(m.sender_id)::text
          || ',"senderNum":' || to_json(case m.sender_id
               when (select member from standing) then (select member_num from standing)
               when (select person from standing) then (select person_num from standing)
               else (select num from users where id = m.sender_id) end)::text
          || ',"type":' || to_json(m.type)::text
          || ',"content":' || to_json(m.content)::text
          || ',"replyToId":' || coalesce(to_json(m.reply_to_id)::text, 'null')
          || ',"agentActionId":' || coalesce(to_json(m.agent_action_id)::text, 'null')
          || ',"createdAt":"'
          || to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
          || case when m.media is null or m.media = '{}'::jsonb then ''
               else coalesce(${mediaMembers(pg)}, '') end
          || case when m.type = 'voice' and m.transcript is not null
               then ',"transcript":' || to_json(m.transcript)::text else '' end
          || '}' as json
      from messages m
      where m.conversation_id = ${conversationId}
        and exists (select 1 from refusal where code is null)
        and m.pos < case when ${before}::text is null then ${Number.MAX_SAFE_INTEGER}::bigint
                         else (select pos from anchor) end
      order by m.pos desc
      limit ${limit + 1}::int
    )
    select case
      when not exists (select 1 from standing) then 'not_found'
      when (select code from refusal) is not null then (select code from refusal)
      when ${before}::text is not null and not exists (select 1 from anchor) then 'no_anchor'
      else '{"messages":[' || coalesce(string_agg(json, ',' order by pos) filter (where n <= ${limit}::int), '')
        || '],"hasMore":' || (count(*) > ${limit}::int)::text || '}'
    end
    from page)`;
}

/** What names a history page read within an admission (`AdmissionRead.column`'s key). */
export const historyKey = (page: HistoryPage) =>
  JSON.stringify([page.conversationId, page.limit, page.before ?? null]);

/** The admission's read of a history page (decision 0080): `historyRead`, of the admitted agent. */
export const historyAdmission = (page: HistoryPage): AdmissionRead["column"] => ({
  key: historyKey(page),
  read: (pg, agent) => historyRead(pg, agent, page),
});

/** `historyRead`'s text as the route's answer, or its refusal raised as checkAgentAccess would. */
export function historyAnswer(
  text: string,
  page: HistoryPage,
): JsonText<{ messages: AgentMessage[]; hasMore: boolean }> {
  switch (text) {
    case "not_found":
      throw new CoreError("not_found", `No conversation ${page.conversationId}`);
    case "forbidden":
    case "not_a_contact":
    case "blocked":
      throw accessRefusal(text);
    case "scope_not_granted":
      throw accessRefusal(text, "messages:read");
    case "no_anchor":
      throw new CoreError("not_found", `No message ${page.before} in this conversation`);
  }
  return new JsonText(text);
}

/**
 * A message's media group as the members toAgentMessage spreads after `createdAt`, compact
 * (`,"audio":{"data":…,"duration":…}`), in jsonb's own key order (what JSON.parse of its text
 * gives): jsonb's text is spaced, the wire's is not. Each group is a flat object (the contract's
 * MessageMedia), so its values' jsonb text is already the wire's. Null for no media.
 */
const mediaMembers = (pg: Sql) => pg`(
  select string_agg(',' || to_json(g.key)::text || ':' || case jsonb_typeof(g.value)
      when 'object' then '{' || coalesce((
        select string_agg(to_json(f.key)::text || ':' || f.value::text, ',' order by f.n)
        from jsonb_each(g.value) with ordinality f (key, value, n)), '') || '}'
      else g.value::text end, '' order by g.n)
  from jsonb_each(m.media) with ordinality g (key, value, n))`;

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
