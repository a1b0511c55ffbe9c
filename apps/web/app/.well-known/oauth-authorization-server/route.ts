import { methods } from "~/server/api-route";
import { authorizationServerMetadata, metadataResponse, originOf } from "~/server/oauth";

/** Authorization Server Metadata (RFC 8414). */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: async (request) => metadataResponse(authorizationServerMetadata(originOf(request))),
});
