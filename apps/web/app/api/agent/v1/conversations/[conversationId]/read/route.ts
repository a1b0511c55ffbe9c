import { ops } from "@switchboard/contract";
import { markConversationRead } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.markRead, async ({ principal, deps, params, body }) => {
    await markConversationRead(deps, principal.agentId, params.conversationId, body.messageId);
    return { ok: true } as const;
  }),
);
