import { ops } from "@switchboard/contract";
import { setAgentTyping } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.setTyping, async ({ principal, deps, params, body }) => {
    await setAgentTyping(deps, principal.agentId, params.conversationId, body.typing);
    return { ok: true } as const;
  }),
);
