import { exchangeToken } from "@switchboard/core";
import { methods } from "~/server/api-route";
import { getDeps } from "~/server/deps";
import { oauthEndpoint, oauthPreflight, originOf, readForm } from "~/server/oauth";
import { json } from "~/server/responses";

/** The token endpoint: authorization_code (PKCE) and refresh_token (rotating). */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: (request) =>
    oauthEndpoint(async () =>
      json(await exchangeToken(getDeps(), await readForm(request), originOf(request)), 200, {
        Pragma: "no-cache",
      }),
    ),
});

/** Browser-based clients ask first (a JSON body is not a simple request). */
export const OPTIONS = oauthPreflight;
