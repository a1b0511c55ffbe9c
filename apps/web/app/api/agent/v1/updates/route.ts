import { AgentUpdatesQuery } from "@switchboard/contract";
import { pollEvents } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({ query: AgentUpdatesQuery }, async ({ principal, deps, query, request }) =>
    ok(await pollEvents(deps, principal.agentId, query, request.signal)),
  ),
});
