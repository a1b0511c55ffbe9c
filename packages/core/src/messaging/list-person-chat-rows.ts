import type { PersonConversation } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { findUser, seenColumnsOf, toAgentUser } from "../identity/users";
import { agentTypingUntil, chatActivity, lastMessagesOf, unreadCount } from "./person-chat";

const { agentContacts, conversations, users } = schema;
const agentUser = alias(users, "agent_user");

/** What a row of the chat list shows about a chat; the open chat reads the rest on its own. */
export type PersonChatRow = Pick<
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
 * neither repeats nor pushes another one out of the next page.
 */
export async function listPersonChatRows(
  deps: CoreDeps,
  userRef: string,
  page: { cursor?: string | null; limit?: number } = {},
): Promise<PersonChatRowPage> {
  const limit = page.limit ?? CHAT_LIST_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CoreError("validation_error", "limit must be 1-100", {
      issues: [{ path: "limit", message: "must be 1-100" }],
    });
  const after = page.cursor ? parseCursor(page.cursor) : undefined;
  const user = await findUser(deps, userRef);
  const rows = await readRows(deps, user.id, after, limit + 1);
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

/** Strictly after the keyset in list order (older activity, or the same and a smaller id). */
function olderThan(after: Keyset): SQL {
  const at = sql`(timestamptz 'epoch' + ${after.micros}::bigint * interval '1 microsecond')`;
  return sql`(${chatActivity}, ${conversations.id}) < (${at}, ${after.id})`;
}

/** The rows in list order; the counts and typing state are worked out for these rows only. */
async function readRows(deps: CoreDeps, userId: string, after: Keyset | undefined, take: number) {
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
    })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .innerJoin(agentUser, eq(agentUser.id, agentContacts.agentId))
    .where(and(eq(agentContacts.userId, userId), after ? olderThan(after) : undefined))
    .orderBy(desc(chatActivity), desc(conversations.id))
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
  }));
}
