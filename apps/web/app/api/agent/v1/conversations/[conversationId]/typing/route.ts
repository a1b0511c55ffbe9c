import { AgentTypingRequest } from "@switchboard/contract";
import { setAgentTyping } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: agentRoute(
    { body: AgentTypingRequest, optionalBody: true },
    async ({ principal, deps, params, body }) => {
      await setAgentTyping(deps, principal.agentId, params.conversationId as string, body.typing);
      return ok({ ok: true });
    },
  ),
});
