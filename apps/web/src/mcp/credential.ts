import "server-only";
import {
  authorizeAgentRequest,
  authorizeOAuthRequest,
  type CoreDeps,
  CoreError,
  parseAuthorization,
} from "@switchboard/core";

type Client = { family?: "ipv4" | "ipv6" | null };

/**
 * How an MCP POST authenticates: the Agent API's `Bearer agent:<token>`, or an OAuth access
 * token as a plain `Bearer` (decision 0070). Answers the admission to run (counting one
 * request each time), or throws 401 before anything is read.
 */
export function mcpAuthorizer(
  header: string | null,
): (deps: CoreDeps, client: Client) => ReturnType<typeof authorizeAgentRequest> {
  const credential = parseAuthorization(header);
  if (credential.kind === "agent")
    return (deps, client) => authorizeAgentRequest(deps, credential.secret, client);
  const bearer = /^Bearer\s+([A-Za-z0-9_-]+)$/i.exec(header?.trim() ?? "")?.[1];
  if (credential.kind === "other" && bearer)
    return (deps, client) => authorizeOAuthRequest(deps, bearer, client);
  throw new CoreError(
    "unauthorized",
    "The MCP endpoint takes an OAuth access token (Authorization: Bearer <token>) or the Agent API's credential (Bearer agent:<token>)",
  );
}
