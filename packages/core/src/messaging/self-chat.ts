import type {
  DevPostSelfMessageRequest,
  DevPostSelfMessageResponse,
  DevSelfMessage,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { desc, eq } from "drizzle-orm";
import { ensureSelfConversation } from "../consent/conversations";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import type { DeveloperPrincipal } from "../identity/developer-keys";
import { newId } from "../ids";
import { enforceRateLimit } from "../limits/rate-limit";

const { conversations, messages } = schema;

function toSelfMessage(row: typeof messages.$inferSelect): DevSelfMessage {
  return {
    id: row.id,
    conversationId: row.conversationId,
    type: "text",
    content: row.content,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * `POST /v1/me/messages`: stores a text message in the key owner's own self chat. It addresses
 * nobody and sends no push; the owner's open console shows it live.
 */
export async function postSelfMessage(
  deps: CoreDeps,
  principal: DeveloperPrincipal,
  request: DevPostSelfMessageRequest,
): Promise<DevPostSelfMessageResponse> {
  if (!principal.scopes.includes("self-chat:write"))
    throw new CoreError("scope_not_granted", "This key lacks the self-chat:write scope", {
      scope: "self-chat:write",
    });
  if (principal.suspended)
    throw new CoreError("account_suspended", "The key owner's account is suspended");
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await enforceRateLimit(
      tx,
      now,
      `dev:${principal.keyId}:messages`,
      deps.config.LIMIT_DEV_MESSAGES_PER_MIN,
      60,
      "messages",
    );
    const conversationId = await ensureSelfConversation(tx, principal.userId, now);
    const [message] = await tx
      .insert(messages)
      .values({
        id: newId("msg"),
        conversationId,
        senderId: principal.userId,
        type: "text",
        content: request.content,
        createdAt: now,
      })
      .returning();
    await tx
      .update(conversations)
      .set({ lastMessageAt: now })
      .where(eq(conversations.id, conversationId));
    const row = message as typeof messages.$inferSelect;
    const answer = { message: toSelfMessage(row), conversationId: row.conversationId };
    // Not a push: only the owner's open console tabs re-read. With an Idempotency-Key, the
    // answer is stored in this transaction, so a retry replays it and never posts twice.
    await Promise.all([
      notifyTopics(tx, [userTopic(principal.userId, "self")]),
      deps.idempotentWrite?.seal(tx, answer),
    ]);
    return answer;
  });
}

/** The newest `limit` messages of a user's self chat, oldest first. */
export async function listSelfMessages(
  deps: CoreDeps,
  userId: string,
  options: { limit?: number } = {},
): Promise<DevSelfMessage[]> {
  const rows = await deps.db
    .select({ message: messages })
    .from(messages)
    .innerJoin(conversations, eq(conversations.id, messages.conversationId))
    .where(eq(conversations.memberKey, userId))
    .orderBy(desc(messages.pos))
    .limit(Math.min(Math.max(options.limit ?? 100, 1), 500));
  return rows.map((row) => toSelfMessage(row.message)).reverse();
}
