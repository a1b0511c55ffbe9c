import { AgentReadRequest } from "@switchboard/contract";
import { markConversationRead } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: agentRoute({ body: AgentReadRequest }, async ({ principal, deps, params, body }) => {
    await markConversationRead(
      deps,
      principal.agentId,
      params.conversationId as string,
      body.messageId,
    );
    return ok({ ok: true });
  }),
});
