import { PutWebhookRequest } from "@switchboard/contract";
import { deleteWebhook, getWebhook, putWebhook } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({}, async ({ principal, deps }) =>
    ok({ webhook: await getWebhook(deps, principal.agentId) }),
  ),
  PUT: agentRoute({ body: PutWebhookRequest }, async ({ principal, deps, body }) =>
    ok(await putWebhook(deps, principal.agentId, body.url)),
  ),
  DELETE: agentRoute({}, async ({ principal, deps }) =>
    ok(await deleteWebhook(deps, principal.agentId)),
  ),
});
