import { ops } from "@switchboard/contract";
import { replyAgentEmail } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.replyEmail, ({ principal, deps, params, body }) =>
    replyAgentEmail(deps, principal, params.threadId, body),
  ),
);
