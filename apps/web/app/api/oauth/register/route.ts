import { OAuthError, registerClient } from "@switchboard/core";
import { methods } from "~/server/api-route";
import { clientNetwork } from "~/server/client-network";
import { getDeps } from "~/server/deps";
import { oauthEndpoint, oauthPreflight } from "~/server/oauth";
import { callerKey, readBodyText } from "~/server/read-body";
import { json } from "~/server/responses";

/** Dynamic Client Registration (RFC 7591) for public clients. */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: (request) =>
    oauthEndpoint(async () => {
      const deps = getDeps();
      const network = clientNetwork(request.headers, deps.config.TRUSTED_PROXIES);
      const text = await readBodyText(request, {
        caller: callerKey({ network }),
        maxBytes: 16_384,
      });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new OAuthError("invalid_client_metadata", "The body is not JSON");
      }
      return json(await registerClient(deps, body, network), 201);
    }),
});

/** Browser-based clients ask first (a JSON body is not a simple request). */
export const OPTIONS = oauthPreflight;
