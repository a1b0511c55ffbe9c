import { ops } from "@switchboard/contract";
import { addReaction } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.addReaction, async ({ principal, deps, params, body }) => ({
    reaction: await addReaction(deps, principal.agentId, params.messageId, body.emoji),
  })),
);
