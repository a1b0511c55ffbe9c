import { rotateWebhookSecret } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: agentRoute({}, async ({ principal, deps }) =>
    ok(await rotateWebhookSecret(deps, principal.agentId)),
  ),
});
