import type { CoreDeps } from "../deps";
import { notifyTopics, userTopic } from "../events/notifier";
import { writeTyping } from "./conversation-marks";
import { findPersonChat } from "./person-chat";

/**
 * The person is typing in their chat with an agent (true, shown for a few seconds unless
 * refreshed) or stopped (false). Stored like the agent's; the Agent API has no event for it.
 */
export async function setPersonTyping(
  deps: CoreDeps,
  userRef: string,
  chatRef: string,
  typing = true,
): Promise<void> {
  const { user, conversationId } = await findPersonChat(deps, userRef, chatRef);
  await deps.db.transaction(async (tx) => {
    await writeTyping(tx, conversationId, user.id, typing, deps.clock.now());
    await notifyTopics(tx, [userTopic(user.id, `chat:${conversationId}`)]);
  });
}
