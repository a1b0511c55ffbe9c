import type { PersonEmailThread } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { agentUserColumns, seenUserColumns, toAgentUser } from "../identity/users";
import { keyOfRow, newestFirst, olderThan } from "../paging";
import { threadOrder } from "./agent-threads";
import { toEmailMessage } from "./email-shape";

const { emailMessages, emailParticipants, emailThreads, users } = schema;

/**
 * A person's threads (one by id, or a page: `limit` after the thread `before` in list order),
 * newest activity first, as their inbox shows them: everyone else in each, the last email, and
 * the emails from others after their read mark. A person always sees their own threads in full.
 */
export async function readPersonThreads(
  deps: CoreDeps,
  userId: string,
  which: { threadId: string } | { limit: number; before?: string | undefined },
): Promise<PersonEmailThread[]> {
  const query = deps.db
    .select({
      thread: emailThreads,
      unreadCount: sql<number>`(
        select count(*)::int from ${emailMessages}
        where ${emailMessages.threadId} = ${emailThreads.id}
          and ${emailMessages.senderId} <> ${userId}
          and ${emailMessages.pos} > ${emailParticipants.lastReadPos}
      )`.mapWith(Number),
    })
    .from(emailParticipants)
    .innerJoin(emailThreads, eq(emailThreads.id, emailParticipants.threadId))
    .where(
      and(
        eq(emailParticipants.userId, userId),
        "threadId" in which ? eq(emailThreads.id, which.threadId) : undefined,
        // Compared in the database: the timestamp keeps microseconds a Date would drop.
        "before" in which && which.before !== undefined
          ? olderThan(threadOrder, keyOfRow(emailThreads, threadOrder, which.before))
          : undefined,
      ),
    )
    .orderBy(...newestFirst(threadOrder));
  const rows = await ("limit" in which ? query.limit(which.limit) : query);
  const ids = rows.map((r) => r.thread.id);
  if (ids.length === 0) return [];
  const others = await deps.db
    .select({ threadId: emailParticipants.threadId, user: agentUserColumns })
    .from(emailParticipants)
    .innerJoin(users, eq(users.id, emailParticipants.userId))
    .where(and(inArray(emailParticipants.threadId, ids), ne(emailParticipants.userId, userId)))
    .orderBy(asc(emailParticipants.joinedAt), asc(users.num));
  const last = await deps.db
    .selectDistinctOn([emailMessages.threadId], { email: emailMessages, senderNum: users.num })
    .from(emailMessages)
    .innerJoin(users, eq(users.id, emailMessages.senderId))
    .where(inArray(emailMessages.threadId, ids))
    .orderBy(emailMessages.threadId, desc(emailMessages.pos));
  const lastBy = new Map(last.map((l) => [l.email.threadId, toEmailMessage(l.email, l.senderNum)]));
  return rows.map(({ thread, unreadCount }) => ({
    id: thread.id,
    subject: thread.subject,
    isGroup: thread.isGroup,
    participants: others.filter((o) => o.threadId === thread.id).map((o) => toAgentUser(o.user)),
    unreadCount,
    lastMessage: lastBy.get(thread.id) ?? null,
    startedById: thread.startedById,
    lastMessageAt: thread.lastMessageAt.toISOString(),
    createdAt: thread.createdAt.toISOString(),
  }));
}

/** A thread the person is in, with the other participants' accounts; 404 otherwise. */
export async function findPersonThread(deps: CoreDeps, userId: string, threadId: string) {
  const rows = await deps.db
    .select({ thread: emailThreads, user: seenUserColumns })
    .from(emailThreads)
    .innerJoin(emailParticipants, eq(emailParticipants.threadId, emailThreads.id))
    .innerJoin(users, eq(users.id, emailParticipants.userId))
    .where(eq(emailThreads.id, threadId));
  const thread = rows[0]?.thread;
  if (!thread || !rows.some((r) => r.user.id === userId))
    throw new CoreError("not_found", `No email thread ${threadId}`);
  return {
    thread,
    others: rows.map((r) => r.user).filter((user) => user.id !== userId),
  };
}
