import { type ChatReaction, Emoji } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { parseInput } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { deleteReaction, writeReaction } from "./conversation-marks";
import { findPersonChatMessage } from "./person-chat";

/** The person reacts to a message of one of their chats (1-10 characters; once per emoji). */
export async function reactAsPerson(
  deps: CoreDeps,
  userRef: string,
  messageId: string,
  emoji: string,
): Promise<ChatReaction> {
  const checked = parseInput(Emoji, emoji, "emoji");
  const { chat } = await findPersonChatMessage(deps, userRef, messageId);
  const createdAt = await deps.db.transaction(async (tx) => {
    const at = await writeReaction(tx, messageId, chat.user.id, checked, deps.clock.now());
    await notifyTopics(tx, [userTopic(chat.user.id, `chat:${chat.conversationId}`)]);
    return at;
  });
  return { userId: chat.user.id, emoji: checked, createdAt: createdAt.toISOString() };
}

/** The person takes a reaction back; taking back one that is not there is fine. */
export async function unreactAsPerson(
  deps: CoreDeps,
  userRef: string,
  messageId: string,
  emoji: string,
): Promise<void> {
  const { chat } = await findPersonChatMessage(deps, userRef, messageId);
  await deps.db.transaction(async (tx) => {
    await deleteReaction(tx, messageId, chat.user.id, emoji);
    await notifyTopics(tx, [userTopic(chat.user.id, `chat:${chat.conversationId}`)]);
  });
}
