import {
  type AgentEmailThread,
  type AgentScope,
  type AgentUser,
  inConsentOrder,
} from "@switchboard/contract";
import { type Executor, schema } from "@switchboard/db";
import { and, desc, eq, inArray, max, ne, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { agentUserColumns, toAgentUser } from "../identity/users";
import { keyOfRow, newestFirst, type OrderKey, olderThan } from "../paging";
import { agentSubject, mayReadEmails, toAgentEmailMessage, toEmailMessage } from "./email-shape";

const { agentContacts, emailMessages, emailParticipants, emailThreads, users } = schema;

/** Threads newest first, by their last email: the agent's and the person's lists alike. */
export const threadOrder: OrderKey = [emailThreads.lastMessageAt, emailThreads.id];

const me = alias(emailParticipants, "me");
const other = alias(emailParticipants, "other");

/** One of the agent's 1:1 threads with the person in it and their standing with the agent now. */
export interface AgentThreadRow {
  thread: typeof emailThreads.$inferSelect;
  person: AgentUser & { suspendedAt: Date | null };
  contact: typeof agentContacts.$inferSelect | null;
  unreadCount: number;
}

/**
 * The agent's 1:1 threads matching `where`, newest activity first, each with the other
 * participant, their standing with the agent and the agent's unread count: the person's emails
 * after the agent's read mark.
 */
function selectAgentThreads(db: Executor, agentId: string, where: SQL | undefined) {
  return db
    .select({
      thread: emailThreads,
      person: { ...agentUserColumns, suspendedAt: users.suspendedAt },
      contact: agentContacts,
      unreadCount: sql<number>`(
        select count(*)::int from ${emailMessages}
        where ${emailMessages.threadId} = ${emailThreads.id}
          and ${emailMessages.senderId} <> ${agentId}
          and ${emailMessages.pos} > ${me.lastReadPos}
      )`.mapWith(Number),
    })
    .from(me)
    .innerJoin(emailThreads, and(eq(emailThreads.id, me.threadId), eq(emailThreads.isGroup, false)))
    .innerJoin(other, and(eq(other.threadId, emailThreads.id), ne(other.userId, agentId)))
    .innerJoin(users, eq(users.id, other.userId))
    .leftJoin(
      agentContacts,
      and(eq(agentContacts.userId, users.id), eq(agentContacts.agentId, agentId)),
    )
    .where(and(eq(me.userId, agentId), where))
    .orderBy(...newestFirst(threadOrder));
}

/** One of the agent's 1:1 threads (none when it is not in it, or it is a group thread). */
export async function readAgentThreads(
  db: Executor,
  agentId: string,
  threadId: string,
): Promise<AgentThreadRow[]> {
  return selectAgentThreads(db, agentId, eq(emailThreads.id, threadId));
}

/**
 * A page of the agent's 1:1 threads: `limit` of them, after the thread `before` in list order
 * (404 unless it is one of the agent's listed threads), and whether more follow.
 */
export async function readAgentThreadPage(
  deps: CoreDeps,
  agentId: string,
  page: { limit: number; before?: string | undefined },
): Promise<{ rows: AgentThreadRow[]; hasMore: boolean }> {
  let after: SQL | undefined;
  if (page.before !== undefined) {
    const [anchor] = await readAgentThreads(deps.db, agentId, page.before);
    if (!anchor) throw new CoreError("not_found", `No email thread ${page.before}`);
    // Compared in the database: the timestamp keeps microseconds a Date would drop.
    after = olderThan(threadOrder, keyOfRow(emailThreads, threadOrder, page.before));
  }
  const rows = await selectAgentThreads(deps.db, agentId, after).limit(page.limit + 1);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/**
 * The 1:1 thread the agent names by id, for reading or replying: 404 for a thread it is not in
 * (or that does not exist), 400 `unsupported` for a group thread it is in.
 */
export async function findAgentThread(
  deps: CoreDeps,
  agentId: string,
  threadId: string,
): Promise<AgentThreadRow> {
  await checkAgentThread(deps, agentId, threadId);
  return readAgentThread(deps, agentId, threadId);
}

/** 404 unless the agent is in the thread; 400 `unsupported` when it is a group thread. */
export async function checkAgentThread(
  deps: CoreDeps,
  agentId: string,
  threadId: string,
): Promise<void> {
  const [membership] = await deps.db
    .select({ isGroup: emailThreads.isGroup })
    .from(emailThreads)
    .innerJoin(me, and(eq(me.threadId, emailThreads.id), eq(me.userId, agentId)))
    .where(eq(emailThreads.id, threadId));
  if (!membership) throw new CoreError("not_found", `No email thread ${threadId}`);
  if (membership.isGroup)
    throw new CoreError(
      "unsupported",
      "This is a group thread; the Agent API reads and replies to 1:1 threads only",
    );
}

/** A 1:1 thread of the agent known to exist (after `checkAgentThread`). */
export async function readAgentThread(
  deps: CoreDeps,
  agentId: string,
  threadId: string,
): Promise<AgentThreadRow> {
  const [row] = await readAgentThreads(deps.db, agentId, threadId);
  if (!row) throw new CoreError("not_found", `The other participant of ${threadId} is gone`);
  return row;
}

/** When the person last wrote in the thread (opens a replies-only person's window for a reply). */
export async function lastEmailFrom(
  deps: CoreDeps,
  threadId: string,
  senderId: string,
): Promise<Date | null> {
  const [row] = await deps.db
    .select({ at: max(emailMessages.createdAt) })
    .from(emailMessages)
    .where(and(eq(emailMessages.threadId, threadId), eq(emailMessages.senderId, senderId)));
  return row?.at ?? null;
}

/** Threads as the Agent API lists them: the last email of each, masked by the person's grant now. */
export async function toAgentEmailThreads(
  db: Executor,
  agentId: string,
  rows: AgentThreadRow[],
): Promise<AgentEmailThread[]> {
  const ids = rows.map((r) => r.thread.id);
  const last =
    ids.length === 0
      ? []
      : await db
          .selectDistinctOn([emailMessages.threadId], {
            email: emailMessages,
            senderNum: users.num,
          })
          .from(emailMessages)
          .innerJoin(users, eq(users.id, emailMessages.senderId))
          .where(inArray(emailMessages.threadId, ids))
          .orderBy(emailMessages.threadId, desc(emailMessages.pos));
  const lastBy = new Map(last.map((l) => [l.email.threadId, toEmailMessage(l.email, l.senderNum)]));
  return rows.map((row) => {
    const lastEmail = lastBy.get(row.thread.id);
    return toAgentEmailThread(agentId, row, lastEmail ?? null);
  });
}

/** One thread row as the Agent API shows it, with its last email (already read from the log). */
export function toAgentEmailThread(
  agentId: string,
  { thread, person, contact, unreadCount }: AgentThreadRow,
  lastEmail: ReturnType<typeof toEmailMessage> | null,
): AgentEmailThread {
  const readable = mayReadEmails(contact, person);
  const participant = toAgentUser(person);
  return {
    id: thread.id,
    subject: agentSubject(thread, agentId, readable),
    participant,
    grantedScopes: contact?.addedAt ? inConsentOrder(contact.grantedScopes as AgentScope[]) : [],
    unreadCount,
    lastMessage: lastEmail && toAgentEmailMessage(lastEmail, agentId, participant, readable),
    startedById: thread.startedById,
    lastMessageAt: thread.lastMessageAt.toISOString(),
    createdAt: thread.createdAt.toISOString(),
  };
}
