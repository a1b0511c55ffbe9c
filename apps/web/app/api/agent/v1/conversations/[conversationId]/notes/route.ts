import { listRecordsForAgent } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({}, async ({ principal, deps, params }) =>
    ok({
      notes: await listRecordsForAgent(
        deps,
        principal.agentId,
        params.conversationId as string,
        "note",
      ),
    }),
  ),
});
