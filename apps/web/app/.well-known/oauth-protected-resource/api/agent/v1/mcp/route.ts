import { methods } from "~/server/api-route";
import { metadataResponse, originOf, protectedResourceMetadata } from "~/server/oauth";

/** Protected Resource Metadata (RFC 9728) of the MCP endpoint. */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: async (request) => metadataResponse(protectedResourceMetadata(originOf(request))),
});
