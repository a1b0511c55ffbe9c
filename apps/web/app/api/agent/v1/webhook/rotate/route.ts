import { ops } from "@switchboard/contract";
import { rotateWebhookSecret } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.rotateWebhookSecret, ({ principal, deps }) =>
    rotateWebhookSecret(deps, principal.agentId),
  ),
);
