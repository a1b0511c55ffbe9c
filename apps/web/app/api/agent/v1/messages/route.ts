import { AgentSendMessageRequest } from "@switchboard/contract";
import { sendAgentMessage } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { created } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: agentRoute({ body: AgentSendMessageRequest }, async ({ principal, deps, body }) =>
    created(await sendAgentMessage(deps, principal, body)),
  ),
});
