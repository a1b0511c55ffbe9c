import type { EmailMessage } from "@switchboard/contract";
import { type Executor, schema, type Tx } from "@switchboard/db";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { newId } from "../ids";
import { toEmailMessage } from "./email-shape";

const { emailMessages, emailParticipants, emailThreads, users } = schema;

export type EmailThreadRow = typeof emailThreads.$inferSelect;
export type EmailRow = typeof emailMessages.$inferSelect;

/**
 * A new thread started by `startedById` with everyone in `participantIds` (the starter first).
 * Two participants make a 1:1 thread; three or more a group.
 */
export async function createThread(
  tx: Tx,
  now: Date,
  thread: { subject: string; startedById: string; participantIds: string[] },
): Promise<EmailThreadRow> {
  const [row] = await tx
    .insert(emailThreads)
    .values({
      id: newId("eth"),
      subject: thread.subject.trim(),
      isGroup: thread.participantIds.length > 2,
      startedById: thread.startedById,
      createdAt: now,
      lastMessageAt: now,
    })
    .returning();
  if (!row) throw new Error("email thread insert returned nothing");
  await tx
    .insert(emailParticipants)
    .values(thread.participantIds.map((userId) => ({ threadId: row.id, userId, joinedAt: now })));
  return row;
}

/** Stores one email in a thread, inside the caller's transaction; the thread's activity moves. */
export async function insertEmail(
  tx: Tx,
  now: Date,
  email: { threadId: string; senderId: string; content: string },
): Promise<EmailRow> {
  const [row] = await tx
    .insert(emailMessages)
    .values({ id: newId("eml"), ...email, createdAt: now })
    .returning();
  if (!row) throw new Error("email insert returned nothing");
  await tx
    .update(emailThreads)
    .set({ lastMessageAt: now })
    .where(eq(emailThreads.id, email.threadId));
  return row;
}

/**
 * Moves a participant's read mark to the thread's newest email; answers whether it moved (so a
 * person's other tabs are woken only when their unread counts change).
 */
export async function markThreadRead(db: Executor, threadId: string, userId: string) {
  const newest = sql`(select coalesce(max(${emailMessages.pos}), 0) from ${emailMessages}
    where ${emailMessages.threadId} = ${threadId})`;
  const moved = await db
    .update(emailParticipants)
    .set({ lastReadPos: newest })
    .where(
      and(
        eq(emailParticipants.threadId, threadId),
        eq(emailParticipants.userId, userId),
        lt(emailParticipants.lastReadPos, newest),
      ),
    )
    .returning({ threadId: emailParticipants.threadId });
  return moved.length > 0;
}

/**
 * One page of a thread's emails as people see them: the newest `limit` (before the email
 * `before`, when given: 404 if it is not of this thread), oldest first within the page, and
 * whether older ones exist. A thread is never read whole: it grows without bound.
 */
export async function readThreadEmailPage(
  deps: CoreDeps,
  threadId: string,
  page: { limit: number; before?: string | undefined },
): Promise<{ emails: EmailMessage[]; hasMore: boolean }> {
  let beforePos: number | undefined;
  if (page.before !== undefined) {
    const [anchor] = await deps.db
      .select({ pos: emailMessages.pos })
      .from(emailMessages)
      .where(and(eq(emailMessages.id, page.before), eq(emailMessages.threadId, threadId)));
    if (!anchor) throw new CoreError("not_found", `No email ${page.before} in this thread`);
    beforePos = anchor.pos;
  }
  const rows = await deps.db
    .select({ email: emailMessages, senderNum: users.num })
    .from(emailMessages)
    .innerJoin(users, eq(users.id, emailMessages.senderId))
    .where(
      and(
        eq(emailMessages.threadId, threadId),
        beforePos === undefined ? undefined : lt(emailMessages.pos, beforePos),
      ),
    )
    .orderBy(desc(emailMessages.pos))
    .limit(page.limit + 1); // one more than the page, to know there are more
  return {
    emails: rows
      .slice(0, page.limit)
      .reverse()
      .map((r) => toEmailMessage(r.email, r.senderNum)),
    hasMore: rows.length > page.limit,
  };
}
