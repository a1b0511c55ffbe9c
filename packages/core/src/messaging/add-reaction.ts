import type { Reaction } from "@switchboard/contract";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { notifyTopics, userTopic } from "../events/notifier";
import { writeReaction } from "./conversation-marks";

/**
 * `POST /messages/{id}/reactions`: the agent reacts to a message of one of its conversations
 * (404 for any other). Needs `messages:write`. The same emoji twice stays one reaction.
 */
export async function addReaction(
  deps: CoreDeps,
  agentId: string,
  messageId: string,
  emoji: string,
): Promise<Reaction> {
  const access = await checkAgentAccess(deps, agentId, { messageId }, { scope: "messages:write" });
  const createdAt = await deps.db.transaction(async (tx) => {
    const at = await writeReaction(tx, messageId, agentId, emoji, deps.clock.now());
    await notifyTopics(tx, [userTopic(access.person.id, `chat:${access.conversationId}`)]);
    return at;
  });
  return { messageId, emoji, createdAt: createdAt.toISOString() };
}
