import { ops } from "@switchboard/contract";
import { listAgentEmails, sendAgentEmail } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.listEmails, ({ principal, deps, query }) =>
    listAgentEmails(deps, principal.agentId, query),
  ),
  agentRoute(ops.sendEmail, ({ principal, deps, body }) => sendAgentEmail(deps, principal, body)),
);
