import { AgentListActionsQuery, AgentProposeActionRequest } from "@switchboard/contract";
import { listAgentActions, proposeAction } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { created, ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: agentRoute({ body: AgentProposeActionRequest }, async ({ principal, deps, body }) =>
    created(await proposeAction(deps, principal, body)),
  ),
  GET: agentRoute({ query: AgentListActionsQuery }, async ({ principal, deps, query }) =>
    ok({ actions: await listAgentActions(deps, principal.agentId, query) }),
  ),
});
