import { handleMcp } from "~/mcp/server";
import { methods } from "~/server/api-route";
import { corsPreflight, readableAnywhere } from "~/server/cors";
import { bearerChallenge, originOf } from "~/server/oauth";

/**
 * The Agent API over MCP (Streamable HTTP, stateless): POST only; no server-initiated stream, so
 * GET (and DELETE of a session) answer 405 as the transport allows. A 401 names where to get a
 * token (RFC 9728 `resource_metadata`), so a client that has only this URL can authorize.
 * A client in a web page may call it from its own origin (CORS, no credentials: the token is
 * the page's to send).
 */
async function post(request: Request): Promise<Response> {
  return readableAnywhere(await answer(request), [
    "WWW-Authenticate",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
  ]);
}

async function answer(request: Request): Promise<Response> {
  const response = await handleMcp(request);
  if (response.status !== 401) return response;
  const presented = Boolean(request.headers.get("authorization")?.trim());
  response.headers.set(
    "WWW-Authenticate",
    bearerChallenge(originOf(request), presented ? "invalid_token" : undefined),
  );
  return response;
}

export const { GET, POST, PUT, PATCH, DELETE } = methods({ POST: post });

/** What a browser-based client sends: its token, JSON, and the MCP version and session headers. */
export const OPTIONS = corsPreflight([
  "authorization",
  "content-type",
  "mcp-protocol-version",
  "mcp-session-id",
  "last-event-id",
]);
