import { ops } from "@switchboard/contract";
import { getAgentEmailThread } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.getEmailThread, ({ principal, deps, params, query }) =>
    getAgentEmailThread(deps, principal.agentId, params.threadId, query),
  ),
);
