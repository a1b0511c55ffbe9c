import { revokeOAuthToken } from "@switchboard/core";
import { methods } from "~/server/api-route";
import { getDeps } from "~/server/deps";
import { oauthEndpoint, oauthPreflight, readForm } from "~/server/oauth";
import { json } from "~/server/responses";

/** Token revocation (RFC 7009): the grant of an access or refresh token; 200 either way. */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: (request) =>
    oauthEndpoint(async () => {
      await revokeOAuthToken(getDeps(), await readForm(request));
      return json({});
    }),
});

/** Browser-based clients ask first (a JSON body is not a simple request). */
export const OPTIONS = oauthPreflight;
