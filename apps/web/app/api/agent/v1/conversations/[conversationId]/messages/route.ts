import { ops } from "@switchboard/contract";
import { listAgentMessagesJson } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.listMessages, ({ principal, deps, params, query }) =>
    listAgentMessagesJson(deps, principal.agentId, params.conversationId, query),
  ),
);
