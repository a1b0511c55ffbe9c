import { ops } from "@switchboard/contract";
import { removeReaction } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.removeReaction, async ({ principal, deps, params }) => {
    await removeReaction(deps, principal.agentId, params.messageId, params.emoji);
    return { ok: true } as const;
  }),
);
