import { ops } from "@switchboard/contract";
import { deleteWebhook, getWebhook, putWebhook } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.getWebhook, async ({ principal, deps }) => ({
    webhook: await getWebhook(deps, principal.agentId),
  })),
  agentRoute(ops.putWebhook, ({ principal, deps, body }) =>
    putWebhook(deps, principal.agentId, body.url),
  ),
  agentRoute(ops.deleteWebhook, ({ principal, deps }) => deleteWebhook(deps, principal.agentId)),
);
