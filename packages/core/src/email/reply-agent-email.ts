import type { AgentReplyEmailRequest, AgentReplyEmailResponse } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { userTopic } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { accessForSend, runSend } from "../sending/send-sequence";
import { findAgentThread, lastEmailFrom } from "./agent-threads";
import { toEmailMessage } from "./email-shape";
import { insertEmail } from "./threads";

/**
 * `POST /emails/{threadId}/messages`: the agent replies in one of its 1:1 threads, through the
 * send sequence. 404 for a thread it is not in, 400 `unsupported` for a group thread; then the
 * access check toward the person with `emails:write`, where a replies-only person's window is
 * open 24 h after their last message in the chat or their last email in this thread. Counts as
 * a message for every limit; the person's open apps are woken.
 */
export async function replyAgentEmail(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  threadId: string,
  request: AgentReplyEmailRequest,
): Promise<AgentReplyEmailResponse> {
  const { agentId } = principal;
  return runSend(deps, {
    agentId,
    charge: "message",
    prepare: () => request,
    access: async () => {
      const { person } = await findAgentThread(deps, agentId, threadId);
      const lastInboundAt = await lastEmailFrom(deps, threadId, person.id);
      return accessForSend(deps, agentId, { to: person.num }, "emails:write", { lastInboundAt });
    },
    store: async (tx, { content }, access) => {
      const row = await insertEmail(tx, deps.clock.now(), { threadId, senderId: agentId, content });
      return {
        result: { message: toEmailMessage(row, access.agent.num), threadId },
        wake: [userTopic(access.person.id, `thread:${threadId}`)],
      };
    },
  });
}
