import { ops } from "@switchboard/contract";
import { listAgentConversations } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.listConversations, async ({ principal, deps }) => ({
    conversations: await listAgentConversations(deps, principal.agentId),
  })),
);
