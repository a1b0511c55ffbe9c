import { ops } from "@switchboard/contract";
import { listAgentConversations } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.listConversations, ({ principal, deps, query }) =>
    listAgentConversations(deps, principal.agentId, query),
  ),
);
