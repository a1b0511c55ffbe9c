import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { notifyTopics, userTopic } from "../events/notifier";
import { deleteReaction } from "./conversation-marks";

/**
 * `DELETE /messages/{id}/reactions/{emoji}`: removes the agent's reaction. Needs
 * `messages:write`; removing a reaction that is not there is fine.
 */
export async function removeReaction(
  deps: CoreDeps,
  agentId: string,
  messageId: string,
  emoji: string,
): Promise<void> {
  const access = await checkAgentAccess(deps, agentId, { messageId }, { scope: "messages:write" });
  await deps.db.transaction(async (tx) => {
    await deleteReaction(tx, messageId, agentId, emoji);
    await notifyTopics(tx, [userTopic(access.person.id, `chat:${access.conversationId}`)]);
  });
}
