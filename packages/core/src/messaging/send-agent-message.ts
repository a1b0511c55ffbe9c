import type { AgentSendMessageRequest } from "@switchboard/contract";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { notifyTopics } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { chargeSend } from "../limits/charge-send";
import { insertMessage, toAgentMessage } from "./compose-message";

/**
 * `POST /messages`: consent (re-read now), limits, then the message, all or nothing. The agent's
 * own sends emit no event to it; the person's open apps are woken.
 */
export async function sendAgentMessage(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentSendMessageRequest,
) {
  const { to, conversationId, ...input } = request;
  const access = await checkAgentAccess(
    deps,
    principal.agentId,
    { to, conversationId },
    {
      scope: "messages:write",
      initiating: true,
    },
  );
  const row = await deps.db.transaction(async (tx) => {
    await chargeSend(tx, deps, { agentId: principal.agentId, recipientId: access.person.id });
    const message = await insertMessage(tx, deps, {
      conversationId: access.conversationId,
      senderId: principal.agentId,
      memberIds: [principal.agentId, access.person.id],
      input,
    });
    await notifyTopics(tx, [`user:${access.person.id}`]);
    return message;
  });
  return { message: toAgentMessage(row), conversationId: access.conversationId };
}
