import { type Executor, schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { newId } from "../ids";

const { conversations, conversationMembers } = schema;

/** Answers the id of a user's self chat, creating it on first use. */
export async function ensureSelfConversation(
  db: Executor,
  userId: string,
  now: Date,
): Promise<string> {
  const [created] = await db
    .insert(conversations)
    .values({ id: newId("cnv"), kind: "self", memberKey: userId, createdAt: now })
    .onConflictDoNothing()
    .returning({ id: conversations.id });
  if (created) {
    await db
      .insert(conversationMembers)
      .values({ conversationId: created.id, userId, joinedAt: now });
    return created.id;
  }
  const [existing] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.memberKey, userId));
  if (!existing) throw new Error(`self conversation of ${userId} vanished`);
  return existing.id;
}

/** The one direct conversation of two users (created on first use). */
export async function ensureDirectConversation(
  db: Executor,
  a: string,
  b: string,
  now: Date,
): Promise<string> {
  const memberKey = [a, b].sort().join(":");
  const [created] = await db
    .insert(conversations)
    .values({ id: newId("cnv"), kind: "direct", memberKey, createdAt: now })
    .onConflictDoNothing()
    .returning({ id: conversations.id });
  if (created) {
    await db.insert(conversationMembers).values([
      { conversationId: created.id, userId: a, joinedAt: now },
      { conversationId: created.id, userId: b, joinedAt: now },
    ]);
    return created.id;
  }
  const [existing] = await db
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.memberKey, memberKey));
  if (!existing) throw new Error(`direct conversation ${memberKey} vanished`);
  return existing.id;
}
