import { ops } from "@switchboard/contract";
import { getAgentAction } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.getAction, async ({ principal, deps, params }) => ({
    action: await getAgentAction(deps, principal.agentId, params.actionId),
  })),
);
