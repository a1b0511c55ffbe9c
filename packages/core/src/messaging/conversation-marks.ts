import { schema, type Tx } from "@switchboard/db";
import { and, eq, sql } from "drizzle-orm";

const { conversationReads, reactions, typingIndicators } = schema;

/**
 * The small per-member state of a conversation that both sides write the same way: read marks,
 * typing indicators and reactions. Callers check access and notify.
 */

/** How long "typing" shows unless refreshed. */
export const TYPING_TTL_MS = 8000;

/** Moves a member's read mark forward to `pos` (never back). */
export async function writeReadMark(
  tx: Tx,
  conversationId: string,
  userId: string,
  pos: number,
  now: Date,
): Promise<void> {
  await tx
    .insert(conversationReads)
    .values({ conversationId, userId, lastReadPos: pos, readAt: now })
    .onConflictDoUpdate({
      target: [conversationReads.conversationId, conversationReads.userId],
      set: {
        lastReadPos: sql`greatest(${conversationReads.lastReadPos}, excluded.last_read_pos)`,
        readAt: now,
      },
    });
}

/** Shows the member as typing for TYPING_TTL_MS from now, or clears it. */
export async function writeTyping(
  tx: Tx,
  conversationId: string,
  userId: string,
  typing: boolean,
  now: Date,
): Promise<void> {
  const mine = and(
    eq(typingIndicators.conversationId, conversationId),
    eq(typingIndicators.userId, userId),
  );
  if (!typing) {
    await tx.delete(typingIndicators).where(mine);
    return;
  }
  const until = new Date(now.getTime() + TYPING_TTL_MS);
  await tx
    .insert(typingIndicators)
    .values({ conversationId, userId, until })
    .onConflictDoUpdate({
      target: [typingIndicators.conversationId, typingIndicators.userId],
      set: { until },
    });
}

/** Adds a reaction; the same emoji twice from the same member stays one reaction. */
export async function writeReaction(
  tx: Tx,
  messageId: string,
  userId: string,
  emoji: string,
  now: Date,
): Promise<Date> {
  await tx
    .insert(reactions)
    .values({ messageId, userId, emoji, createdAt: now })
    .onConflictDoNothing();
  const [row] = await tx
    .select({ createdAt: reactions.createdAt })
    .from(reactions)
    .where(
      and(
        eq(reactions.messageId, messageId),
        eq(reactions.userId, userId),
        eq(reactions.emoji, emoji),
      ),
    );
  return row?.createdAt ?? now;
}

/** Removes a reaction; removing one that is not there is not an error. */
export async function deleteReaction(
  tx: Tx,
  messageId: string,
  userId: string,
  emoji: string,
): Promise<void> {
  await tx
    .delete(reactions)
    .where(
      and(
        eq(reactions.messageId, messageId),
        eq(reactions.userId, userId),
        eq(reactions.emoji, emoji),
      ),
    );
}
