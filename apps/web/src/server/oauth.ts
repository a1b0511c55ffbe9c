import "server-only";
import {
  CoreError,
  MCP_PATH,
  mcpResource,
  OAUTH_SCOPE,
  OAuthError,
  protectedResourceMetadataUrl,
} from "@switchboard/core";
import { requestOrigin } from "~/auth/options";
import { clientNetwork } from "./client-network";
import { ANY_ORIGIN, corsPreflight, readableAnywhere } from "./cors";
import { getDeps } from "./deps";
import { callerKey, readBodyText } from "./read-body";
import { json, toErrorResponse } from "./responses";

/**
 * The HTTP side of OAuth 2.1 for the MCP endpoint (decision 0070): the metadata documents and
 * the endpoints' RFC 6749 answers. Core holds the rules.
 */

/** The origin the request was made to (settled from PUBLIC_URL or a trusted proxy). */
export function originOf(request: Request): string {
  return requestOrigin(request.headers) ?? new URL(request.url).origin;
}

/** `WWW-Authenticate` for a call to the MCP endpoint without a usable token (RFC 9728 §5.1). */
export function bearerChallenge(origin: string, error?: "invalid_token"): string {
  return [
    `Bearer resource_metadata="${protectedResourceMetadataUrl(origin)}"`,
    `scope="${OAUTH_SCOPE}"`,
    ...(error ? [`error="${error}"`] : []),
  ].join(", ");
}

/** Protected Resource Metadata (RFC 9728) for the MCP endpoint. */
export function protectedResourceMetadata(origin: string) {
  return {
    resource: mcpResource(origin),
    authorization_servers: [origin],
    scopes_supported: [OAUTH_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: "Switchboard Agent API (MCP)",
  };
}

/** Authorization Server Metadata (RFC 8414). */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/api/oauth/token`,
    registration_endpoint: `${origin}/api/oauth/register`,
    revocation_endpoint: `${origin}/api/oauth/revoke`,
    scopes_supported: [OAUTH_SCOPE],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    protected_resources: [mcpResource(origin)],
  };
}

export { MCP_PATH };

/** Metadata answers: public, cacheable briefly, readable by browser-based clients. */
export const metadataResponse = (body: unknown) =>
  Response.json(body, { headers: { "Cache-Control": "public, max-age=300", ...ANY_ORIGIN } });

/** The CORS preflight of an OAuth endpoint: a JSON or form POST from any origin. */
export const oauthPreflight = corsPreflight(["content-type"]);

const FORM_BYTES = 16 * 1024;

/** A token or revocation request's form (RFC 6749 uses application/x-www-form-urlencoded). */
export async function readForm(request: Request): Promise<Record<string, string>> {
  const deps = getDeps();
  const text = await readBodyText(request, {
    caller: callerKey({ network: clientNetwork(request.headers, deps.config.TRUSTED_PROXIES) }),
    maxBytes: FORM_BYTES,
  });
  const type = request.headers.get("content-type") ?? "";
  if (type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_request", "The body is not JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new OAuthError("invalid_request", "The body must be an object");
    return Object.fromEntries(
      Object.entries(parsed).filter(
        (entry): entry is [string, string] => typeof entry[1] === "string",
      ),
    );
  }
  const form = new URLSearchParams(text);
  const out: Record<string, string> = {};
  for (const [key, value] of form) {
    if (key in out) throw new OAuthError("invalid_request", `${key} is given twice`);
    out[key] = value;
  }
  return out;
}

/**
 * Runs an OAuth endpoint: an OAuthError answers RFC 6749's `{ error, error_description }`, a
 * rate limit its 429, anything else the usual envelope; every answer readable from any origin
 * (browser-based MCP clients register and exchange codes from their own page).
 */
export async function oauthEndpoint(run: () => Promise<Response>): Promise<Response> {
  return readableAnywhere(await answer(run));
}

async function answer(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthError)
      return json(error.toJSON(), error.error === "invalid_client" ? 401 : error.status);
    if (error instanceof CoreError && error.code === "validation_error")
      return json({ error: "invalid_request", error_description: error.message }, 400);
    return toErrorResponse(error, crypto.randomUUID());
  }
}
