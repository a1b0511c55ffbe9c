import type { EmailMessage } from "@switchboard/contract";
import { type Executor, schema, type Tx } from "@switchboard/db";
import { and, asc, eq, lt, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
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

/** Every email of a thread, oldest first, as people see them. */
export async function readThreadEmails(deps: CoreDeps, threadId: string): Promise<EmailMessage[]> {
  const rows = await deps.db
    .select({ email: emailMessages, senderNum: users.num })
    .from(emailMessages)
    .innerJoin(users, eq(users.id, emailMessages.senderId))
    .where(eq(emailMessages.threadId, threadId))
    .orderBy(asc(emailMessages.pos));
  return rows.map((r) => toEmailMessage(r.email, r.senderNum));
}
