import { AgentReactionRequest } from "@switchboard/contract";
import { addReaction } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { created } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: agentRoute({ body: AgentReactionRequest }, async ({ principal, deps, params, body }) =>
    created({
      reaction: await addReaction(deps, principal.agentId, params.messageId as string, body.emoji),
    }),
  ),
});
