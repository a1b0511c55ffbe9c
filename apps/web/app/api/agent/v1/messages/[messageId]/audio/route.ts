import { ops } from "@switchboard/contract";
import { getMessageAudio } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";
import { storedObjectResponse } from "~/server/stored-object";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.getMessageAudio, async ({ principal, deps, params, request }) => {
    const audio = await getMessageAudio(deps, principal.agentId, params.messageId);
    return storedObjectResponse(request, { ...audio, kind: "audio", name: "voice-note" });
  }),
);
