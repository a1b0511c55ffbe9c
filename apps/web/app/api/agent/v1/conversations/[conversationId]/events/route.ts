import { ops } from "@switchboard/contract";
import { listRecordsForAgent } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.listEvents, async ({ principal, deps, params }) => ({
    events: await listRecordsForAgent(deps, principal.agentId, params.conversationId, "event"),
  })),
);
