import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { lt } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeAgentRequest, revokeAgentToken } from "../identity/agent-tokens";
import { createAgent, pauseAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { codeOf, createTestDeps } from "../testing";
import { registerClient, resolveClient } from "./clients";
import {
  authorizeOAuthRequest,
  checkAuthorizationRequest,
  decideAuthorization,
  exchangeToken,
  revokeOAuthToken,
} from "./grants";
import {
  isAllowedRedirectUri,
  metadataDocumentUrl,
  OAuthError,
  pkceMatches,
  redirectUriRegistered,
  resourceMatches,
} from "./rules";

const ORIGIN = "https://switchboard.example";
const RESOURCE = `${ORIGIN}/api/agent/v1/mcp`;
const REDIRECT = "http://127.0.0.1:53682/callback";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let server: Server;
let documentBase: string;
const documents: Record<string, unknown> = {};

beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
  server = createServer((request, response) => {
    const body = documents[request.url ?? ""];
    if (body === undefined) return response.writeHead(404).end();
    response
      .writeHead(200, { "content-type": "application/json" })
      .end(typeof body === "string" ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  documentBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await t.close();
});

const oauthCode = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    if (error instanceof OAuthError) return error.error;
    throw error;
  }
  return "ok";
};

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function ownerWithAgent() {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Helper" });
  return { owner, agent };
}

const authParams = (clientId: string, challenge: string, extra: Record<string, string> = {}) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: REDIRECT,
  code_challenge: challenge,
  code_challenge_method: "S256",
  resource: RESOURCE,
  state: "st-1",
  scope: "agent",
  ...extra,
});

/** Registers a client, allows it for a new agent and exchanges the code. */
async function granted() {
  const { owner, agent } = await ownerWithAgent();
  const { client_id } = await registerClient(
    t.deps,
    { redirect_uris: [REDIRECT], client_name: "Desk" },
    "n1",
  );
  const { verifier, challenge } = pkce();
  const to = new URL(
    await decideAuthorization(t.deps, {
      userId: owner.id,
      params: authParams(client_id, challenge),
      origin: ORIGIN,
      agentId: agent.id,
      allow: true,
    }),
  );
  const code = to.searchParams.get("code") ?? "";
  const tokens = await exchangeToken(
    t.deps,
    {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id,
      redirect_uri: REDIRECT,
      resource: RESOURCE,
    },
    ORIGIN,
  );
  return { owner, agent, client_id, tokens, to };
}

describe("rules", () => {
  it("takes https redirect URIs and http only on loopback (any port), never fragments", () => {
    expect(isAllowedRedirectUri("https://app.example/cb")).toBe(true);
    expect(isAllowedRedirectUri("http://127.0.0.1:9/cb")).toBe(true);
    expect(isAllowedRedirectUri("http://[::1]:9/cb")).toBe(true);
    expect(isAllowedRedirectUri("http://localhost/cb")).toBe(true);
    expect(isAllowedRedirectUri("http://app.example/cb")).toBe(false);
    expect(isAllowedRedirectUri("https://app.example/cb#x")).toBe(false);
    expect(isAllowedRedirectUri("javascript:alert(1)")).toBe(false);
    expect(redirectUriRegistered("http://127.0.0.1:4000/cb", ["http://127.0.0.1/cb"])).toBe(true);
    expect(redirectUriRegistered("http://127.0.0.1:4000/other", ["http://127.0.0.1/cb"])).toBe(
      false,
    );
    expect(redirectUriRegistered("https://app.example:444/cb", ["https://app.example/cb"])).toBe(
      false,
    );
  });

  it("checks PKCE S256 and the resource", () => {
    const { verifier, challenge } = pkce();
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(undefined, challenge)).toBe(false);
    expect(pkceMatches(pkce().verifier, challenge)).toBe(false);
    expect(resourceMatches(RESOURCE, ORIGIN)).toBe(true);
    expect(resourceMatches(`${RESOURCE}/`, ORIGIN)).toBe(true);
    expect(resourceMatches(`${ORIGIN}/api/v1`, ORIGIN)).toBe(false);
    expect(resourceMatches("https://evil.example/api/agent/v1/mcp", ORIGIN)).toBe(false);
  });

  it("refuses metadata document URLs that are not https to a public host", () => {
    expect(metadataDocumentUrl("sbcl_x", [])).toBeNull();
    expect(metadataDocumentUrl("https://app.example/client.json", [])?.host).toBe("app.example");
    for (const unsafe of [
      "http://app.example/client.json",
      "https://10.0.0.1/client.json",
      "https://169.254.169.254/latest",
      "https://localhost/client.json",
      "https://[::1]/client.json",
      "https://app.example/",
      "https://user:pw@app.example/c",
    ])
      expect(() => metadataDocumentUrl(unsafe, []), unsafe).toThrow(OAuthError);
  });
});

describe("clients", () => {
  it("registers public clients with allowed redirect URIs only", async () => {
    const answer = await registerClient(
      t.deps,
      { redirect_uris: [REDIRECT], client_name: "Desk" },
      "n2",
    );
    expect(answer).toMatchObject({ token_endpoint_auth_method: "none", client_name: "Desk" });
    expect((await resolveClient(t.deps, answer.client_id)).source).toEqual({ kind: "registered" });
    expect(
      await oauthCode(registerClient(t.deps, { redirect_uris: ["http://evil.example/cb"] }, "n2")),
    ).toBe("invalid_redirect_uri");
    expect(
      await oauthCode(
        registerClient(
          t.deps,
          { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" },
          "n2",
        ),
      ),
    ).toBe("invalid_client_metadata");
  });

  it("rate-limits registrations per network", async () => {
    for (let i = 0; i < 20; i++)
      await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n-burst");
    expect(await codeOf(registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n-burst"))).toBe(
      "rate_limited",
    );
  });

  it("forgets a registration nobody used for a week", async () => {
    const { client_id } = await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n3");
    t.clock.advance(8 * 24 * 3600 * 1000);
    expect(await oauthCode(resolveClient(t.deps, client_id))).toBe("invalid_client");
  });

  it("reads a client metadata document, whose client_id must be its own URL", async () => {
    const url = `${documentBase}/good.json`;
    documents["/good.json"] = { client_id: url, client_name: "Doc App", redirect_uris: [REDIRECT] };
    expect(await resolveClient(t.deps, url)).toMatchObject({
      name: "Doc App",
      source: { kind: "metadata", host: new URL(url).host },
    });
    documents["/other.json"] = { client_id: "https://else.example/c", redirect_uris: [REDIRECT] };
    expect(await oauthCode(resolveClient(t.deps, `${documentBase}/other.json`))).toBe(
      "invalid_client",
    );
    documents["/huge.json"] = JSON.stringify({
      client_id: `${documentBase}/huge.json`,
      redirect_uris: [REDIRECT],
      pad: "x".repeat(10_000),
    });
    expect(await oauthCode(resolveClient(t.deps, `${documentBase}/huge.json`))).toBe(
      "invalid_client",
    );
    expect(await oauthCode(resolveClient(t.deps, `${documentBase}/missing.json`))).toBe(
      "invalid_client",
    );
  });
});

describe("authorization", () => {
  it("refuses on the page (never redirecting) an unknown client or a foreign redirect URI", async () => {
    const { client_id } = await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n4");
    const { challenge } = pkce();
    const foreign = await checkAuthorizationRequest(
      t.deps,
      authParams(client_id, challenge, { redirect_uri: "https://evil.example/cb" }),
      ORIGIN,
    );
    expect(foreign.kind).toBe("fatal");
    const unknown = await checkAuthorizationRequest(
      t.deps,
      authParams("sbcl_nope", challenge),
      ORIGIN,
    );
    expect(unknown.kind).toBe("fatal");
  });

  it("sends a wrong resource, a missing PKCE challenge or a bad scope back to the redirect URI", async () => {
    const { client_id } = await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n5");
    const { challenge } = pkce();
    const errorOf = async (extra: Record<string, string>) => {
      const check = await checkAuthorizationRequest(
        t.deps,
        authParams(client_id, challenge, extra),
        ORIGIN,
      );
      if (check.kind !== "redirect") throw new Error(check.kind);
      const url = new URL(check.to);
      expect(url.origin + url.pathname).toBe(REDIRECT);
      expect(url.searchParams.get("state")).toBe("st-1");
      return url.searchParams.get("error");
    };
    expect(await errorOf({ resource: `${ORIGIN}/api/v1` })).toBe("invalid_target");
    expect(await errorOf({ code_challenge: "" })).toBe("invalid_request");
    expect(await errorOf({ code_challenge_method: "plain" })).toBe("invalid_request");
    expect(await errorOf({ scope: "admin" })).toBe("invalid_scope");
    expect(await errorOf({ response_type: "token" })).toBe("unsupported_response_type");
  });

  it("answers Deny with access_denied and the state", async () => {
    const { owner, agent } = await ownerWithAgent();
    const { client_id } = await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n6");
    const to = new URL(
      await decideAuthorization(t.deps, {
        userId: owner.id,
        params: authParams(client_id, pkce().challenge),
        origin: ORIGIN,
        agentId: agent.id,
        allow: false,
      }),
    );
    expect(to.searchParams.get("error")).toBe("access_denied");
    expect(to.searchParams.get("state")).toBe("st-1");
    expect(to.searchParams.get("code")).toBeNull();
  });

  it("issues a code only for the person's own agent", async () => {
    const { owner } = await ownerWithAgent();
    const other = await ownerWithAgent();
    const { client_id } = await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n7");
    const decide = decideAuthorization(t.deps, {
      userId: owner.id,
      params: authParams(client_id, pkce().challenge),
      origin: ORIGIN,
      agentId: other.agent.id,
      allow: true,
    });
    expect(await oauthCode(decide)).toBe("invalid_request");
  });
});

describe("tokens", () => {
  it("exchanges a code once, with its PKCE verifier, for a token that acts as the agent at the MCP endpoint only", async () => {
    const { agent, tokens, to } = await granted();
    expect(to.searchParams.get("state")).toBe("st-1");
    expect(to.searchParams.get("iss")).toBe(ORIGIN);
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "agent" });
    expect((await authorizeOAuthRequest(t.deps, tokens.access_token)).agentId).toBe(agent.id);
    // Not an Agent API token: `agent:<access token>` finds nothing.
    expect(await codeOf(authorizeAgentRequest(t.deps, tokens.access_token))).toBe("unauthorized");
  });

  it("refuses a missing or wrong verifier, another redirect URI and a reused code", async () => {
    const { owner, agent } = await ownerWithAgent();
    const { client_id } = await registerClient(t.deps, { redirect_uris: [REDIRECT] }, "n8");
    const codeFor = async () => {
      const { verifier, challenge } = pkce();
      const to = await decideAuthorization(t.deps, {
        userId: owner.id,
        params: authParams(client_id, challenge),
        origin: ORIGIN,
        agentId: agent.id,
        allow: true,
      });
      return { code: new URL(to).searchParams.get("code") ?? "", verifier };
    };
    const form = (code: string, extra: Record<string, string | undefined>) => ({
      grant_type: "authorization_code",
      code,
      client_id,
      redirect_uri: REDIRECT,
      ...extra,
    });
    const a = await codeFor();
    expect(await oauthCode(exchangeToken(t.deps, form(a.code, {}), ORIGIN))).toBe(
      "invalid_request",
    );
    const b = await codeFor();
    expect(
      await oauthCode(
        exchangeToken(t.deps, form(b.code, { code_verifier: pkce().verifier }), ORIGIN),
      ),
    ).toBe("invalid_grant");
    const c = await codeFor();
    expect(
      await oauthCode(
        exchangeToken(
          t.deps,
          form(c.code, { code_verifier: c.verifier, redirect_uri: "http://127.0.0.1:1/x" }),
          ORIGIN,
        ),
      ),
    ).toBe("invalid_grant");
    const d = await codeFor();
    expect(
      await oauthCode(
        exchangeToken(
          t.deps,
          form(d.code, { code_verifier: d.verifier, resource: `${ORIGIN}/x` }),
          ORIGIN,
        ),
      ),
    ).toBe("invalid_target");
    const e = await codeFor();
    expect(
      await oauthCode(exchangeToken(t.deps, form(e.code, { code_verifier: e.verifier }), ORIGIN)),
    ).toBe("ok");
    expect(
      await oauthCode(exchangeToken(t.deps, form(e.code, { code_verifier: e.verifier }), ORIGIN)),
    ).toBe("invalid_grant");
  });

  it("rotates refresh tokens; a reused one revokes the whole family", async () => {
    const { client_id, tokens } = await granted();
    const next = await exchangeToken(
      t.deps,
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id },
      ORIGIN,
    );
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    await authorizeOAuthRequest(t.deps, next.access_token);
    expect(await codeOf(authorizeOAuthRequest(t.deps, tokens.access_token))).toBe("unauthorized");
    const reuse = exchangeToken(
      t.deps,
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id },
      ORIGIN,
    );
    expect(await oauthCode(reuse)).toBe("invalid_grant");
    expect(await codeOf(authorizeOAuthRequest(t.deps, next.access_token))).toBe("token_revoked");
    const after = exchangeToken(
      t.deps,
      { grant_type: "refresh_token", refresh_token: next.refresh_token, client_id },
      ORIGIN,
    );
    expect(await oauthCode(after)).toBe("invalid_grant");
  });

  it("shows the grant in the agent's token list; revoking it there refuses the next call and the refresh", async () => {
    const { agent, client_id, tokens } = await granted();
    const { listAgentTokens } = await import("../identity/agent-tokens");
    await authorizeOAuthRequest(t.deps, tokens.access_token);
    const [grant] = await listAgentTokens(t.deps, agent.id);
    expect(grant).toMatchObject({ name: "Desk", revokedAt: null });
    expect(grant?.lastUsedAt).not.toBeNull();
    await revokeAgentToken(t.deps, { tokenId: grant?.id ?? "", agentId: agent.id });
    expect(await codeOf(authorizeOAuthRequest(t.deps, tokens.access_token))).toBe("token_revoked");
    const refresh = exchangeToken(
      t.deps,
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id },
      ORIGIN,
    );
    expect(await oauthCode(refresh)).toBe("invalid_grant");
  });

  it("refuses the next call of a paused agent", async () => {
    const { agent, tokens } = await granted();
    await pauseAgent(t.deps, agent.id);
    expect(await codeOf(authorizeOAuthRequest(t.deps, tokens.access_token))).toBe("agent_paused");
  });

  it("revokes at the revocation endpoint by refresh or access token (RFC 7009)", async () => {
    const first = await granted();
    await revokeOAuthToken(t.deps, { token: first.tokens.refresh_token });
    expect(await codeOf(authorizeOAuthRequest(t.deps, first.tokens.access_token))).toBe(
      "token_revoked",
    );
    const second = await granted();
    await revokeOAuthToken(t.deps, {
      token: second.tokens.access_token,
      client_id: second.client_id,
    });
    expect(await codeOf(authorizeOAuthRequest(t.deps, second.tokens.access_token))).toBe(
      "token_revoked",
    );
    await revokeOAuthToken(t.deps, { token: "unknown" }); // no error
  });

  it("sweeps codes past their minute as new ones are made", async () => {
    await granted();
    t.clock.advance(61 * 1000);
    await granted();
    const stale = await t.deps.db
      .select()
      .from(schema.oauthCodes)
      .where(lt(schema.oauthCodes.expiresAt, t.clock.now()));
    expect(stale).toEqual([]);
  });

  it("expires the access token after an hour", async () => {
    const { tokens } = await granted();
    t.clock.advance(3601 * 1000);
    expect(await codeOf(authorizeOAuthRequest(t.deps, tokens.access_token))).toBe("token_expired");
  });
});
