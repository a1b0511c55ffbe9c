import { ops } from "@switchboard/contract";
import { listAgentActions, proposeAction } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.proposeAction, ({ principal, deps, body }) =>
    proposeAction(deps, principal, body),
  ),
  agentRoute(ops.listActions, async ({ principal, deps, query }) => ({
    actions: await listAgentActions(deps, principal.agentId, query),
  })),
);
