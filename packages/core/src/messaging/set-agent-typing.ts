import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { notifyTopics, userTopic } from "../events/notifier";
import { writeTyping } from "./conversation-marks";

/**
 * `POST /conversations/{id}/typing`: true shows the agent typing to the person for a few
 * seconds unless refreshed (and until it sends); false clears it. Needs `messages:write`.
 */
export async function setAgentTyping(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  typing: boolean,
): Promise<void> {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId },
    { scope: "messages:write" },
  );
  await deps.db.transaction(async (tx) => {
    await writeTyping(tx, conversationId, agentId, typing, deps.clock.now());
    await notifyTopics(tx, [userTopic(access.person.id, `chat:${conversationId}`)]);
  });
}
