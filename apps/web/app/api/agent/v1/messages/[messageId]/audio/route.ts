import { getMessageAudio } from "@switchboard/core";
import { agentRoute, methods } from "~/server/api-route";
import { bytesResponse } from "~/server/byte-range";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: agentRoute({}, async ({ principal, deps, params, request }) => {
    const audio = await getMessageAudio(deps, principal.agentId, params.messageId as string);
    return bytesResponse(request, audio.bytes, audio.mimeType);
  }),
});
