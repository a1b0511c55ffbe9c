import type { AgentSendEmailRequest, AgentSendEmailResponse } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { userTopic } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { accessForSend, runSend } from "../sending/send-sequence";
import { readAgentThreads, toAgentEmailThread } from "./agent-threads";
import { toEmailMessage } from "./email-shape";
import { createThread, insertEmail } from "./threads";

/**
 * `POST /emails`: the agent starts a 1:1 thread with a person, through the send sequence. The
 * person must have added the agent and grant `emails:write`; a replies-only person must have
 * written in their chat within 24 h (refusals count toward the refused-send ceiling). It counts
 * as a message for the per-minute, per-recipient and daily limits. The person's open apps are
 * woken; the agent's own email emits no event to it.
 */
export async function sendAgentEmail(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentSendEmailRequest,
): Promise<AgentSendEmailResponse> {
  const { agentId } = principal;
  return runSend(deps, {
    agentId,
    charge: "message",
    prepare: () => request,
    access: () => accessForSend(deps, agentId, { to: request.to }, "emails:write"),
    store: async (tx, { subject, content }, access) => {
      const now = deps.clock.now();
      const thread = await createThread(tx, now, {
        subject,
        startedById: agentId,
        participantIds: [agentId, access.person.id],
      });
      const row = await insertEmail(tx, now, { threadId: thread.id, senderId: agentId, content });
      const message = toEmailMessage(row, access.agent.num);
      const [shown] = await readAgentThreads(tx, agentId, thread.id);
      if (!shown) throw new Error(`email thread ${thread.id} vanished`);
      return {
        result: { thread: toAgentEmailThread(agentId, shown, message), message },
        wake: [userTopic(access.person.id, `thread:${thread.id}`)],
      };
    },
  });
}
