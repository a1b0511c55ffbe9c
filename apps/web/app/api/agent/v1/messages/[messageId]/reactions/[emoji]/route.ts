import { removeReaction } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  DELETE: agentRoute({}, async ({ principal, deps, params }) => {
    await removeReaction(deps, principal.agentId, params.messageId ?? "", params.emoji ?? "");
    return ok({ ok: true });
  }),
});
