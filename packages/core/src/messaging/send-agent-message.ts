import type { AgentMessage, AgentSendMessageRequest } from "@switchboard/contract";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { notifyTopics } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { chargeSend } from "../limits/charge-send";
import { insertMessage, toAgentMessage } from "./compose-message";
import { prepareMessage, speakMessage } from "./prepare-message";

/**
 * `POST /messages`. In order: the media field is read and checked (400s, 503 without TTS);
 * consent is re-read (404/403, refused sends counted); speech is synthesized for `tts` (502);
 * then in one transaction the send is charged to the agent's limits (429, daily usage), the
 * message stored and the person's open apps woken. The agent's own send emits no event to it.
 */
export async function sendAgentMessage(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentSendMessageRequest,
): Promise<{ message: AgentMessage; conversationId: string }> {
  const { agentId } = principal;
  const { to, conversationId, ...input } = request;
  const prepared = prepareMessage(deps, input);
  const access = await checkAgentAccess(
    deps,
    agentId,
    { to, conversationId },
    { scope: "messages:write", initiating: true },
  );
  const ready = await speakMessage(deps, prepared);
  const row = await deps.db.transaction(async (tx) => {
    await chargeSend(tx, deps, { agentId, recipientId: access.person.id });
    const message = await insertMessage(tx, deps, {
      conversationId: access.conversationId,
      senderId: agentId,
      prepared: ready,
    });
    await notifyTopics(tx, [`user:${access.person.id}`]);
    return message;
  });
  return {
    message: toAgentMessage(row, access.agent.num),
    conversationId: access.conversationId,
  };
}
