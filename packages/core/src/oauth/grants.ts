import { schema } from "@switchboard/db";
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { notifyAgentControl } from "../events/agent-control";
import { authorizeAgentRequest } from "../identity/agent-tokens";
import type { AddressFamily } from "../identity/credentials";
import { newId } from "../ids";
import { hashSecret, newSecret, secretHint } from "../secrets";
import { keepClient, type OAuthClient, resolveClient } from "./clients";
import {
  ACCESS_TOKEN_SECONDS,
  accessTokenSecret,
  CODE_SECONDS,
  isCodeChallenge,
  mcpResource,
  OAUTH_SCOPE,
  OAuthError,
  pkceMatches,
  REFRESH_TOKEN_SECONDS,
  redirectUriRegistered,
  resourceMatches,
} from "./rules";

const { agentTokens, agents, oauthCodes, oauthRefreshTokens } = schema;

type Params = Record<string, string | undefined>;

/** A checked authorization request: what the page shows and what a decision answers to. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  resource: string;
  scope: string;
}

/**
 * The outcome of reading an authorization request. `fatal`: the client or its redirect URI
 * cannot be trusted, so the page shows the error and sends nobody anywhere. `redirect`: the
 * error goes back to the (registered) redirect URI, as RFC 6749 §4.1.2.1 says.
 */
export type AuthorizationCheck =
  | { kind: "ok"; request: AuthorizationRequest }
  | { kind: "fatal"; error: OAuthError }
  | { kind: "redirect"; to: string };

/** The redirect URI with the answer's parameters (and `iss`, RFC 9207). */
export function redirectWith(
  redirectUri: string,
  values: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(values))
    if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}

export async function checkAuthorizationRequest(
  deps: CoreDeps,
  params: Params,
  origin: string,
): Promise<AuthorizationCheck> {
  let client: OAuthClient;
  try {
    client = await resolveClient(deps, params.client_id ?? "");
  } catch (error) {
    if (error instanceof OAuthError) return { kind: "fatal", error };
    throw error;
  }
  const redirectUri = params.redirect_uri;
  if (!redirectUri || !redirectUriRegistered(redirectUri, client.redirectUris))
    return {
      kind: "fatal",
      error: new OAuthError("invalid_request", "The redirect_uri is not one the client registered"),
    };
  const state = params.state;
  const back = (error: string, description: string): AuthorizationCheck => ({
    kind: "redirect",
    to: redirectWith(redirectUri, {
      error,
      error_description: description,
      state,
      iss: origin,
    }),
  });
  if (params.response_type !== "code")
    return back("unsupported_response_type", "response_type must be code");
  if (params.code_challenge_method !== "S256" || !isCodeChallenge(params.code_challenge))
    return back("invalid_request", "PKCE is required: code_challenge with method S256");
  if (!resourceMatches(params.resource, origin))
    return back("invalid_target", `resource must be ${mcpResource(origin)}`);
  const scopes = (params.scope ?? OAUTH_SCOPE).split(" ").filter(Boolean);
  if (scopes.some((scope) => scope !== OAUTH_SCOPE))
    return back("invalid_scope", `The only scope is ${OAUTH_SCOPE}`);
  return {
    kind: "ok",
    request: {
      client,
      redirectUri,
      state,
      codeChallenge: params.code_challenge,
      resource: mcpResource(origin),
      scope: OAUTH_SCOPE,
    },
  };
}

/**
 * The owner's answer on the authorization page, re-checking the whole request: Allow issues a
 * code for the agent they picked (which must be theirs), Deny answers `access_denied`. Answers
 * where the browser goes next.
 */
export async function decideAuthorization(
  deps: CoreDeps,
  input: { userId: string; params: Params; origin: string; agentId: string | null; allow: boolean },
): Promise<string> {
  const check = await checkAuthorizationRequest(deps, input.params, input.origin);
  if (check.kind === "fatal") throw check.error;
  if (check.kind === "redirect") return check.to;
  const { request } = check;
  const answer = { state: request.state, iss: input.origin };
  if (!input.allow)
    return redirectWith(request.redirectUri, {
      error: "access_denied",
      error_description: "The owner denied access",
      ...answer,
    });
  const [agent] = await deps.db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, input.agentId ?? ""), eq(agents.ownerId, input.userId)));
  if (!agent) throw new OAuthError("invalid_request", "Pick one of your agents");
  const code = newSecret("sbac_");
  const now = deps.clock.now();
  // Codes live a minute: the ones past it (used or not) go as new ones are made.
  await deps.db.delete(oauthCodes).where(lt(oauthCodes.expiresAt, now));
  await deps.db.insert(oauthCodes).values({
    codeHash: hashSecret(code),
    clientId: request.client.clientId,
    clientName: request.client.name,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scope: request.scope,
    agentId: agent.id,
    userId: input.userId,
    expiresAt: new Date(now.getTime() + CODE_SECONDS * 1000),
  });
  if (request.client.source.kind === "registered") await keepClient(deps, request.client.clientId);
  return redirectWith(request.redirectUri, { code, ...answer });
}

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

async function newRefreshToken(
  deps: CoreDeps,
  executor: Pick<CoreDeps["db"], "insert">,
  grant: { grantId: string; clientId: string; resource: string; scope: string },
): Promise<string> {
  const token = newSecret("sbrt_");
  const now = deps.clock.now();
  await executor.insert(oauthRefreshTokens).values({
    tokenHash: hashSecret(token),
    ...grant,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000),
  });
  return token;
}

const accessExpiry = (now: Date) => new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000);

/** Revokes a grant: its agent token (the access token) and with it every refresh token. */
async function revokeGrant(deps: CoreDeps, grantId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(agentTokens)
      .set({ revokedAt: deps.clock.now() })
      .where(and(eq(agentTokens.id, grantId), isNull(agentTokens.revokedAt)))
      .returning({ agentId: agentTokens.agentId });
    if (row) await notifyAgentControl(tx, [row.agentId]);
  });
}

/** `grant_type=authorization_code` (PKCE checked) and `grant_type=refresh_token` (rotating). */
export async function exchangeToken(
  deps: CoreDeps,
  form: Params,
  origin: string,
): Promise<TokenAnswer> {
  if (form.grant_type === "authorization_code") return exchangeCode(deps, form, origin);
  if (form.grant_type === "refresh_token") return refresh(deps, form, origin);
  throw new OAuthError(
    form.grant_type ? "unsupported_grant_type" : "invalid_request",
    "grant_type must be authorization_code or refresh_token",
  );
}

async function exchangeCode(deps: CoreDeps, form: Params, origin: string): Promise<TokenAnswer> {
  if (!form.code) throw new OAuthError("invalid_request", "code is required");
  if (!form.code_verifier) throw new OAuthError("invalid_request", "code_verifier is required");
  if (form.resource !== undefined && !resourceMatches(form.resource, origin))
    throw new OAuthError("invalid_target", `resource must be ${mcpResource(origin)}`);
  const now = deps.clock.now();
  // Single use: whoever marks the code used first has it; a second exchange finds nothing.
  const [code] = await deps.db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(oauthCodes.codeHash, hashSecret(form.code)),
        isNull(oauthCodes.usedAt),
        gt(oauthCodes.expiresAt, now),
      ),
    )
    .returning();
  if (!code) throw new OAuthError("invalid_grant", "The code is not valid (used or expired)");
  if (code.clientId !== form.client_id)
    throw new OAuthError("invalid_grant", "The code was issued to another client");
  if (code.redirectUri !== form.redirect_uri)
    throw new OAuthError("invalid_grant", "redirect_uri differs from the authorization request's");
  if (!pkceMatches(form.code_verifier, code.codeChallenge))
    throw new OAuthError("invalid_grant", "The code_verifier does not match the code_challenge");
  const access = newSecret("sbao_");
  const grantId = newId("tok");
  const refreshToken = await deps.db.transaction(async (tx) => {
    await tx.insert(agentTokens).values({
      id: grantId,
      agentId: code.agentId,
      tokenHash: hashSecret(accessTokenSecret(access)),
      hint: secretHint(access),
      name: code.clientName.slice(0, 100),
      createdAt: now,
      expiresAt: accessExpiry(now),
    });
    return newRefreshToken(deps, tx, {
      grantId,
      clientId: code.clientId,
      resource: code.resource,
      scope: code.scope,
    });
  });
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refreshToken,
    scope: code.scope,
  };
}

async function refresh(deps: CoreDeps, form: Params, origin: string): Promise<TokenAnswer> {
  if (!form.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required");
  if (form.resource !== undefined && !resourceMatches(form.resource, origin))
    throw new OAuthError("invalid_target", `resource must be ${mcpResource(origin)}`);
  const now = deps.clock.now();
  const hash = hashSecret(form.refresh_token);
  const [found] = await deps.db
    .select({ token: oauthRefreshTokens, revokedAt: agentTokens.revokedAt })
    .from(oauthRefreshTokens)
    .innerJoin(agentTokens, eq(agentTokens.id, oauthRefreshTokens.grantId))
    .where(eq(oauthRefreshTokens.tokenHash, hash));
  if (!found) throw new OAuthError("invalid_grant", "The refresh token is not valid");
  const { token } = found;
  if (form.client_id !== undefined && form.client_id !== token.clientId)
    throw new OAuthError("invalid_grant", "The refresh token was issued to another client");
  if (found.revokedAt) throw new OAuthError("invalid_grant", "The grant was revoked");
  if (token.expiresAt <= now) throw new OAuthError("invalid_grant", "The refresh token expired");
  const access = newSecret("sbao_");
  const next = await deps.db.transaction(async (tx) => {
    const [used] = await tx
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthRefreshTokens.tokenHash, hash), isNull(oauthRefreshTokens.usedAt)))
      .returning({ grantId: oauthRefreshTokens.grantId });
    if (!used) return null;
    // The family's expired refresh tokens are kept no longer (used ones are kept until then,
    // so that a reuse is still recognised).
    await tx
      .delete(oauthRefreshTokens)
      .where(
        and(eq(oauthRefreshTokens.grantId, token.grantId), lt(oauthRefreshTokens.expiresAt, now)),
      );
    await tx
      .update(agentTokens)
      .set({
        tokenHash: hashSecret(accessTokenSecret(access)),
        hint: secretHint(access),
        expiresAt: accessExpiry(now),
      })
      .where(eq(agentTokens.id, token.grantId));
    return newRefreshToken(deps, tx, {
      grantId: token.grantId,
      clientId: token.clientId,
      resource: token.resource,
      scope: token.scope,
    });
  });
  if (next === null) {
    // Presented again after it was rotated: someone else has it. The whole family goes.
    await revokeGrant(deps, token.grantId);
    throw new OAuthError(
      "invalid_grant",
      "The refresh token was already used; the grant is revoked",
    );
  }
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: next,
    scope: token.scope,
  };
}

/**
 * RFC 7009: revokes the grant an access or refresh token belongs to. An unknown token is not an
 * error (the answer is 200 either way); a token of another client is left alone.
 */
export async function revokeOAuthToken(deps: CoreDeps, form: Params): Promise<void> {
  if (!form.token) throw new OAuthError("invalid_request", "token is required");
  const [refreshRow] = await deps.db
    .select({ grantId: oauthRefreshTokens.grantId, clientId: oauthRefreshTokens.clientId })
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.tokenHash, hashSecret(form.token)));
  if (refreshRow) {
    if (form.client_id === undefined || form.client_id === refreshRow.clientId)
      await revokeGrant(deps, refreshRow.grantId);
    return;
  }
  const [accessRow] = await deps.db
    .select({ id: agentTokens.id, clientId: oauthRefreshTokens.clientId })
    .from(agentTokens)
    .innerJoin(oauthRefreshTokens, eq(oauthRefreshTokens.grantId, agentTokens.id))
    .where(eq(agentTokens.tokenHash, hashSecret(accessTokenSecret(form.token))))
    .limit(1);
  if (accessRow && (form.client_id === undefined || form.client_id === accessRow.clientId))
    await revokeGrant(deps, accessRow.id);
}

/**
 * Lets an MCP call in on an OAuth access token: the agent-token pipeline's own checks (revoked,
 * expired, paused, owner, request limit) on the grant's token. The secret it looks up cannot be
 * presented as `agent:<token>`, so the access token is good at the MCP endpoint only.
 */
export function authorizeOAuthRequest(
  deps: CoreDeps,
  accessToken: string,
  client: { family?: AddressFamily | null } = {},
) {
  return authorizeAgentRequest(deps, accessTokenSecret(accessToken), client);
}
