import type { AgentMessage, AgentSendMessageRequest } from "@switchboard/contract";
import type { AgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { userTopic } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import {
  insertMessage,
  insertsAtOnce,
  type MessageRow,
  messageInsertParts,
  toAgentMessage,
} from "../sending/compose-message";
import { materializeMessage, prepareMessage } from "../sending/prepare-message";
import { accessAgain, accessForSend, runSend } from "../sending/send-sequence";

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
    // One statement after the first send to a target (decision 0083): a message with nothing
    // to store first and no reply target to look up (text, a location, a shared contact).
    repeat: {
      key: `${agentId} ${to ?? ""} ${conversationId ?? ""}`,
      again: (standing) => accessAgain(deps, standing, "messages:write"),
      store: (pg, prepared, access) => {
        if (!insertsAtOnce(prepared)) return null;
        const { row, ctes } = messageInsertParts(
          pg,
          { conversationId: access.conversationId, senderId: agentId, pushTo: access.person.id },
          prepared,
          deps.clock.now(),
        );
        return {
          ctes,
          stored: (answer) => sent({ ...row, pos: Number(answer.pos) }, access),
        };
      },
    },
    materialize: (prepared) => materializeMessage(deps, prepared),
    store: async (tx, prepared, access) => {
      const row = await insertMessage(tx, deps, {
        conversationId: access.conversationId,
        senderId: agentId,
        prepared,
        pushTo: access.person.id,
      });
      return sent(row, access);
    },
  });
}

/** A stored agent message's answer, and the wake-up of the person's open chat. */
function sent(row: MessageRow, access: AgentAccess) {
  return {
    result: {
      message: toAgentMessage(row, access.agent.num),
      conversationId: access.conversationId,
    },
    wake: [userTopic(access.person.id, `chat:${access.conversationId}`)],
  };
}
