import { AgentUpdateMeRequest } from "@switchboard/contract";
import { getAgentMe, updateAgentMe } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({}, async ({ principal, deps }) => ok(await getAgentMe(deps, principal.agentId))),
  PATCH: agentRoute({ body: AgentUpdateMeRequest }, async ({ principal, deps, body }) =>
    ok(await updateAgentMe(deps, principal.agentId, body)),
  ),
});
