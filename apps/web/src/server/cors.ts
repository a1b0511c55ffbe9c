/**
 * CORS for the endpoints a client in another origin's page may call: the OAuth endpoints and
 * the MCP endpoint (browser-based MCP clients). Any origin, never credentials: what these
 * endpoints act on rides on a bearer token or a PKCE verifier the page holds, never on a cookie,
 * so a page gains nothing it did not already have.
 */
export const ANY_ORIGIN = { "Access-Control-Allow-Origin": "*" } as const;

/** The answer to a CORS preflight (`OPTIONS`) for a POST sending `headers`. */
export function corsPreflight(headers: readonly string[]): () => Promise<Response> {
  const answer = {
    ...ANY_ORIGIN,
    "Access-Control-Allow-Methods": "POST",
    "Access-Control-Allow-Headers": headers.join(", "),
    "Access-Control-Max-Age": "86400",
  };
  return async () => new Response(null, { status: 204, headers: answer });
}

/** `response`, readable by a page of any origin, with `expose` headers visible to it. */
export function readableAnywhere(response: Response, expose: readonly string[] = []): Response {
  response.headers.set("Access-Control-Allow-Origin", ANY_ORIGIN["Access-Control-Allow-Origin"]);
  if (expose.length > 0) response.headers.set("Access-Control-Expose-Headers", expose.join(", "));
  return response;
}
