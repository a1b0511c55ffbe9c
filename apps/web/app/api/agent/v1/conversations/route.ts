import { listAgentConversations } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({}, async ({ principal, deps }) =>
    ok({ conversations: await listAgentConversations(deps, principal.agentId) }),
  ),
});
