import { schema } from "@switchboard/db";
import { and, desc, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { writeReadMark } from "./conversation-marks";
import { findPersonChat } from "./person-chat";

const { messages } = schema;

/**
 * The person has read their chat up to `messageId` (a message of that chat), or up to its
 * newest message when none is given. The mark never moves back; the person's other open apps
 * update.
 */
export async function markReadByPerson(
  deps: CoreDeps,
  userRef: string,
  chatRef: string,
  messageId?: string,
): Promise<void> {
  const { user, conversationId } = await findPersonChat(deps, userRef, chatRef);
  const [message] = await deps.db
    .select({ pos: messages.pos })
    .from(messages)
    .where(
      and(
        eq(messages.conversationId, conversationId),
        messageId ? eq(messages.id, messageId) : undefined,
      ),
    )
    .orderBy(desc(messages.pos))
    .limit(1);
  if (!message) {
    if (messageId) throw new CoreError("not_found", `No message ${messageId} in this chat`);
    return;
  }
  await deps.db.transaction(async (tx) => {
    await writeReadMark(tx, conversationId, user.id, message.pos, deps.clock.now());
    await notifyTopics(tx, [userTopic(user.id, `read:${conversationId}`)]);
  });
}
