import type { PersonConversation } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { cardWaitingAt } from "../actions/waiting-cards";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { findUser, seenColumnsOf, toAgentUser } from "../identity/users";
import { keyAt, newestFirst, type OrderKey, olderThan } from "../paging";
import { agentTypingUntil, chatActivity, lastMessagesOf, unreadCount } from "./person-chat";

const { actions, agentContacts, conversations, users } = schema;
const agentUser = alias(users, "agent_user");

/**
 * What a row of the chat list shows about a chat; the open chat reads the rest on its own.
 * `pendingCards` counts the cards in it that wait for the person's decision (not yet expired).
 */
export type PersonChatRow = { pendingCards: number } & Pick<
  PersonConversation,
  | "id"
  | "agent"
  | "isContact"
  | "blocked"
  | "lastMessage"
  | "lastMessageAt"
  | "unreadCount"
  | "agentTypingUntil"
>;

/** The longest name search the chat list takes. */
export const CHAT_SEARCH_MAX_CHARS = 100;

/** A page of the chat list, and where the next one starts (null at the oldest chat). */
export interface PersonChatRowPage {
  chats: PersonChatRow[];
  nextCursor: string | null;
}

export const CHAT_LIST_PAGE_SIZE = 30;

/**
 * A page of the person's chat list, newest activity first (the last message's time, or the
 * chat's creation before any), `limit` chats after `cursor`. The cursor is a keyset (the last
 * row's activity in microseconds and its id), so a chat that moves to the top between pages
 * neither repeats nor pushes another one out of the next page. `search` keeps the chats whose
 * agent's name or number contains it (any case; `%` and `_` are plain characters).
 */
export async function listPersonChatRows(
  deps: CoreDeps,
  userRef: string,
  page: { cursor?: string | null; limit?: number; search?: string | null } = {},
): Promise<PersonChatRowPage> {
  const limit = page.limit ?? CHAT_LIST_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CoreError("validation_error", "limit must be 1-100", {
      issues: [{ path: "limit", message: "must be 1-100" }],
    });
  const search = page.search?.trim() || undefined;
  if (search && search.length > CHAT_SEARCH_MAX_CHARS)
    throw new CoreError(
      "validation_error",
      `search must be at most ${CHAT_SEARCH_MAX_CHARS} characters`,
      {
        issues: [
          { path: "search", message: `must be at most ${CHAT_SEARCH_MAX_CHARS} characters` },
        ],
      },
    );
  const after = page.cursor ? parseCursor(page.cursor) : undefined;
  const user = await findUser(deps, userRef);
  const rows = await readRows(deps, user.id, { after, search }, limit + 1);
  const shown = rows.slice(0, limit);
  const last = await lastMessagesOf(
    deps,
    shown.map((r) => r.id),
  );
  const next = rows.length > limit ? shown.at(-1) : undefined;
  return {
    chats: shown.map(({ activityMicros: _, ...row }) => ({
      ...row,
      lastMessage: last.get(row.id) ?? null,
    })),
    nextCursor: next ? `${next.activityMicros}.${next.id}` : null,
  };
}

interface Keyset {
  micros: string;
  id: string;
}

/** `<activity in epoch microseconds>.<chat id>`, as `listPersonChatRows` hands it out. */
function parseCursor(cursor: string): Keyset {
  const match = /^(\d{1,17})\.(\S{1,64})$/.exec(cursor);
  if (!match)
    throw new CoreError("validation_error", "cursor is not one this list gave", {
      issues: [{ path: "cursor", message: "is not one this list gave" }],
    });
  return { micros: match[1] as string, id: match[2] as string };
}

/** The list's order: newest activity first. */
const listOrder: OrderKey = [chatActivity, conversations.id];

/** Strictly after the keyset in list order (older activity, or the same and a smaller id). */
function afterKeyset(after: Keyset): SQL {
  const at = sql`(timestamptz 'epoch' + ${after.micros}::bigint * interval '1 microsecond')`;
  return olderThan(listOrder, keyAt(at, after.id));
}

/** The agent's name or number contains the words (LIKE's wildcards taken literally). */
function named(search: string): SQL {
  const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`(${agentUser.displayName} ilike ${pattern} or ${agentUser.num} ilike ${pattern})`;
}

/** Cards in the chat that wait for the person (joined on the contact). */
const pendingCards = (now: Date) =>
  sql<number>`(
    select count(*)::int from ${actions}
    where ${actions.conversationId} = ${conversations.id}
      and ${actions.userId} = ${agentContacts.userId}
      and ${cardWaitingAt(now)}
  )`.mapWith(Number);

/** The rows in list order; the counts and typing state are worked out for these rows only. */
async function readRows(
  deps: CoreDeps,
  userId: string,
  { after, search }: { after: Keyset | undefined; search: string | undefined },
  take: number,
) {
  const now = deps.clock.now();
  const rows = await deps.db
    .select({
      id: conversations.id,
      // Microseconds, as Postgres keeps them: a millisecond cursor would skip or repeat chats.
      activityMicros: sql<string>`(extract(epoch from ${chatActivity}) * 1000000)::bigint::text`,
      agent: seenColumnsOf(agentUser),
      addedAt: agentContacts.addedAt,
      blockedAt: agentContacts.blockedAt,
      lastMessageAt: conversations.lastMessageAt,
      unreadCount: unreadCount(),
      agentTypingUntil: agentTypingUntil(now),
      pendingCards: pendingCards(now),
    })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .innerJoin(agentUser, eq(agentUser.id, agentContacts.agentId))
    .where(
      and(
        eq(agentContacts.userId, userId),
        after ? afterKeyset(after) : undefined,
        search ? named(search) : undefined,
      ),
    )
    .orderBy(...newestFirst(listOrder))
    .limit(take);
  return rows.map((r) => ({
    id: r.id,
    activityMicros: r.activityMicros,
    agent: toAgentUser(r.agent),
    isContact: r.addedAt !== null,
    blocked: r.blockedAt !== null,
    lastMessageAt: r.lastMessageAt?.toISOString() ?? null,
    unreadCount: r.unreadCount,
    agentTypingUntil: r.agentTypingUntil?.toISOString() ?? null,
    pendingCards: r.pendingCards,
  }));
}
