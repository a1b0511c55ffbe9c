import { ops } from "@switchboard/contract";
import { updateAgentMe } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  // The profile came with the token's own lookup: one statement for the whole call.
  agentRoute(ops.getMe, async ({ principal }) => principal.me),
  agentRoute(ops.updateMe, ({ principal, deps, body }) =>
    updateAgentMe(deps, principal.agentId, body),
  ),
);
