import type { AgentMessage, AgentSendMessageRequest } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { userTopic } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { insertMessage, toAgentMessage } from "../sending/compose-message";
import { materializeMessage, prepareMessage } from "../sending/prepare-message";
import { accessForSend, runSend } from "../sending/send-sequence";

/**
 * `POST /messages`, through the send sequence: the media field is read and checked (400s, 503
 * without a speech engine); consent is re-read (404/403, refused sends counted); the send is
 * charged (429, daily usage); a `tts` voice note is synthesized (502); the message is stored and
 * the person's open apps woken. The agent's own send emits no event to it.
 */
export async function sendAgentMessage(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentSendMessageRequest,
): Promise<{ message: AgentMessage; conversationId: string }> {
  const { agentId } = principal;
  const { to, conversationId, ...input } = request;
  return runSend(deps, {
    agentId,
    charge: "message",
    prepare: () => prepareMessage(deps, input),
    access: () => accessForSend(deps, agentId, { to, conversationId }, "messages:write"),
    // Sent with BEGIN after the first send to a target (decision 0078): the store uses the chat,
    // the person and the agent's number.
    pipeline: {
      key: `${agentId} ${to ?? ""} ${conversationId ?? ""}`,
      access: (tx) =>
        accessForSend(deps, agentId, { to, conversationId }, "messages:write", {}, tx),
      same: (remembered, fresh) =>
        remembered.conversationId === fresh.conversationId &&
        remembered.person.id === fresh.person.id &&
        remembered.agent.num === fresh.agent.num,
    },
    materialize: (prepared) => materializeMessage(deps, prepared),
    store: async (tx, prepared, access) => {
      const row = await insertMessage(tx, deps, {
        conversationId: access.conversationId,
        senderId: agentId,
        prepared,
        pushTo: access.person.id,
      });
      return {
        result: {
          message: toAgentMessage(row, access.agent.num),
          conversationId: access.conversationId,
        },
        wake: [userTopic(access.person.id, `chat:${access.conversationId}`)],
      };
    },
  });
}
