import { ops } from "@switchboard/contract";
import { listRecordsForAgent } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.listReminders, async ({ principal, deps, params }) => ({
    reminders: await listRecordsForAgent(
      deps,
      principal.agentId,
      params.conversationId,
      "reminder",
    ),
  })),
);
