import { AgentHistoryQuery } from "@switchboard/contract";
import { listAgentMessages } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({ query: AgentHistoryQuery }, async ({ principal, deps, params, query }) =>
    ok(await listAgentMessages(deps, principal.agentId, params.conversationId as string, query)),
  ),
});
