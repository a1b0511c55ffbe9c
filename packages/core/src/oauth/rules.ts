import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { isPublicAddress } from "../net/address-policy";

/**
 * The pure rules of OAuth 2.1 for the MCP endpoint (decision 0070): redirect URIs, PKCE,
 * the resource indicator, client metadata documents' addresses.
 */

/** The one scope: act as the agent the person picks (each person's grants still decide). */
export const OAUTH_SCOPE = "agent";
export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const CODE_SECONDS = 60;
/** A registered client nobody authorized for this long is gone. */
export const CLIENT_UNUSED_SECONDS = 7 * 24 * 3600;

/** The path of the MCP endpoint, the only protected resource. */
export const MCP_PATH = "/api/agent/v1/mcp";
export const mcpResource = (origin: string) => `${origin}${MCP_PATH}`;
export const protectedResourceMetadataUrl = (origin: string) =>
  `${origin}/.well-known/oauth-protected-resource${MCP_PATH}`;

/** RFC 6749 / 7591 / 8707 error codes the endpoints answer. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "invalid_target"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable";

/** An OAuth refusal: answered as `{ error, error_description }` (or on the redirect URI). */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = "OAuthError";
  }

  toJSON() {
    return { error: this.error, error_description: this.description };
  }
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A loopback host as RFC 8252 means it: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname)) return true;
  return isIP(hostname) === 4 && hostname.startsWith("127.");
}

/**
 * Whether a client may name this redirect URI: https, or http on a loopback address with any
 * port (RFC 8252); no fragment, no credentials, at most 2000 characters.
 */
export function isAllowedRedirectUri(raw: string): boolean {
  if (typeof raw !== "string" || raw.length > 2000) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.hash || raw.includes("#") || url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

/**
 * Whether `presented` is a registered redirect URI: the same string, except that a loopback
 * redirect may take any port (RFC 8252 §7.3).
 */
export function redirectUriRegistered(presented: string, registered: readonly string[]): boolean {
  if (registered.includes(presented)) return true;
  let url: URL;
  try {
    url = new URL(presented);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return false;
  return registered.some((entry) => {
    try {
      const other = new URL(entry);
      return (
        other.protocol === "http:" &&
        other.hostname === url.hostname &&
        other.pathname === url.pathname &&
        other.search === url.search
      );
    } catch {
      return false;
    }
  });
}

/** PKCE S256: BASE64URL(SHA-256(verifier)) equals the challenge; the verifier per RFC 7636. */
export function pkceMatches(verifier: string | undefined, challenge: string): boolean {
  if (!verifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return createHash("sha256").update(verifier).digest("base64url") === challenge;
}

/** A code challenge as S256 makes one: 43 base64url characters. */
export const isCodeChallenge = (value: string | undefined): value is string =>
  typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value);

/** The resource indicator names the MCP endpoint (a trailing slash aside). */
export function resourceMatches(resource: string | undefined, origin: string): boolean {
  if (!resource) return false;
  return resource.replace(/\/$/, "") === mcpResource(origin);
}

/**
 * A `client_id` that is a Client ID Metadata Document's URL: https with a path, no fragment or
 * credentials (http only for a host the development allowance names). Answers the URL, or null
 * when the id is not a URL at all (a registered client's id). Throws for a URL that may not be
 * fetched (a private address literal, a local name).
 */
export function metadataDocumentUrl(
  clientId: string,
  allowInsecureHosts: readonly string[],
): URL | null {
  if (!/^https?:\/\//i.test(clientId)) return null;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new OAuthError("invalid_client", "The client_id is not a valid URL");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const allowed = allowInsecureHosts.some((entry) => entry.toLowerCase() === host);
  if (url.protocol !== "https:" && !(allowed && url.protocol === "http:"))
    throw new OAuthError("invalid_client", "A client_id URL must use https");
  if (url.username || url.password || url.hash || url.pathname === "/" || clientId.length > 2000)
    throw new OAuthError("invalid_client", "A client_id URL needs a path and no credentials");
  if (allowed) return url;
  if (isIP(host) ? !isPublicAddress(host) : !host.includes(".") || host.endsWith(".localhost"))
    throw new OAuthError("invalid_client", "The client_id URL is not allowed");
  return url;
}

/** The secret the agent-token lookup hashes for an access token: never a REST credential. */
export const accessTokenSecret = (token: string) => `oauth ${token}`;
