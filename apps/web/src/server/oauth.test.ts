import { refreshAuthorization, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  createAgent,
  createUser,
  decideAuthorization,
  listAgentTokens,
  pauseAgent,
  revokeAgentToken,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as asMetadata from "../../app/.well-known/oauth-authorization-server/route";
import * as prm from "../../app/.well-known/oauth-protected-resource/api/agent/v1/mcp/route";
import * as mcp from "../../app/api/agent/v1/mcp/route";
import * as register from "../../app/api/oauth/register/route";
import * as revoke from "../../app/api/oauth/revoke/route";
import * as token from "../../app/api/oauth/token/route";
import { MemoryOAuthProvider } from "../testing";
import { provideDeps } from "./deps";

/**
 * OAuth 2.1 for the MCP endpoint in process, driven by the official SDK client's OAuth provider:
 * discovery from the 401, registration, PKCE, the token exchange, tool calls as the chosen
 * agent, a refresh, reuse, revocation. The owner's Allow is core's decision (the console page is
 * driven in Chromium by e2e/console/mcp-oauth.spec.ts).
 */
const ORIGIN = "http://localhost";
const MCP_URL = new URL(`${ORIGIN}/api/agent/v1/mcp`);
const REDIRECT = "http://127.0.0.1:8765/callback";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps(t.deps);
});
afterAll(() => t.close());

const ctx = { params: Promise.resolve({}) };
const routes: Record<string, Record<string, (r: Request, c: typeof ctx) => Promise<Response>>> = {
  "/.well-known/oauth-protected-resource/api/agent/v1/mcp": prm,
  "/.well-known/oauth-authorization-server": asMetadata,
  "/api/agent/v1/mcp": mcp,
  "/api/oauth/register": register,
  "/api/oauth/token": token,
  "/api/oauth/revoke": revoke,
};
const inProcessFetch = (async (input: string | URL | Request, init?: RequestInit) => {
  const request = new Request(input, init);
  const handler = routes[new URL(request.url).pathname]?.[request.method];
  return handler ? handler(request, ctx) : new Response("not found", { status: 404 });
}) as typeof fetch;

/** The SDK's provider interface, kept in memory; the "browser" is a URL we read. */
class MemoryProvider extends MemoryOAuthProvider {
  constructor(info?: OAuthClientInformationMixed) {
    super({ name: "SDK Test Client", redirect: REDIRECT, state: "state-123" }, info);
  }
}

const transportFor = (provider: MemoryProvider) =>
  new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider, fetch: inProcessFetch });

async function connected(provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(transportFor(provider));
  return client;
}

async function owner() {
  const person = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: person.id,
    displayName: `Oauth ${Math.random().toString(36).slice(2, 6)}`,
  });
  return { person, agent };
}

/** The SDK's flow up to the redirect, the owner's Allow, and finishAuth with the code. */
async function authorize(provider: MemoryProvider, userId: string, agentId: string) {
  const first = transportFor(provider);
  await expect(new Client({ name: "x", version: "1" }).connect(first)).rejects.toThrow(
    UnauthorizedError,
  );
  const url = provider.authorizationUrl;
  if (!url) throw new Error("no authorization URL");
  expect(url.pathname).toBe("/oauth/authorize");
  const params = Object.fromEntries(url.searchParams);
  expect(params).toMatchObject({
    response_type: "code",
    code_challenge_method: "S256",
    resource: MCP_URL.href,
    state: "state-123",
  });
  const back = new URL(
    await decideAuthorization(t.deps, { userId, params, origin: ORIGIN, agentId, allow: true }),
  );
  expect(back.searchParams.get("state")).toBe("state-123");
  await first.finishAuth(back.searchParams.get("code") ?? "");
}

describe("discovery", () => {
  it("answers 401 with the resource metadata address and the scope", async () => {
    const response = await inProcessFetch(MCP_URL, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/api/agent/v1/mcp", scope="agent"`,
    );
    const wrong = await inProcessFetch(MCP_URL, {
      method: "POST",
      body: "{}",
      headers: { Authorization: "Bearer nope" },
    });
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("publishes protected resource and authorization server metadata", async () => {
    const resource = await (
      await inProcessFetch(`${ORIGIN}/.well-known/oauth-protected-resource/api/agent/v1/mcp`)
    ).json();
    expect(resource).toMatchObject({
      resource: MCP_URL.href,
      authorization_servers: [ORIGIN],
      scopes_supported: ["agent"],
      bearer_methods_supported: ["header"],
    });
    const server = await (
      await inProcessFetch(`${ORIGIN}/.well-known/oauth-authorization-server`)
    ).json();
    expect(server).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oauth/authorize`,
      token_endpoint: `${ORIGIN}/api/oauth/token`,
      registration_endpoint: `${ORIGIN}/api/oauth/register`,
      revocation_endpoint: `${ORIGIN}/api/oauth/revoke`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
    });
  });
});

describe("the SDK client", () => {
  it("registers, authorizes with PKCE and calls tools as the chosen agent; refreshes; a reused refresh token revokes the family", async () => {
    const { person, agent } = await owner();
    const provider = new MemoryProvider();
    await authorize(provider, person.id, agent.id);
    expect(provider.info?.client_id).toMatch(/^sbcl_/);
    const client = await connected(provider);
    const me = await client.callTool({ name: "getMe", arguments: {} });
    expect(me.structuredContent).toMatchObject({ id: agent.id });
    await client.close();
    // The grant is in the agent's token list under the client's name, used just now.
    const [grant] = await listAgentTokens(t.deps, agent.id);
    expect(grant).toMatchObject({ name: "SDK Test Client" });
    expect(grant?.lastUsedAt).not.toBeNull();

    // An access token the server no longer takes: the SDK refreshes and goes on.
    const before = provider.saved as OAuthTokens;
    provider.saved = { ...before, access_token: "expired" };
    const again = await connected(provider);
    expect(
      (await again.callTool({ name: "getMe", arguments: {} })).structuredContent,
    ).toMatchObject({ id: agent.id });
    await again.close();
    expect(provider.saved?.refresh_token).not.toBe(before.refresh_token);

    // The old refresh token presented again: refused, and the whole family is revoked.
    const metadata = await (
      await inProcessFetch(`${ORIGIN}/.well-known/oauth-authorization-server`)
    ).json();
    await expect(
      refreshAuthorization(ORIGIN, {
        metadata,
        clientInformation: provider.info as OAuthClientInformationMixed,
        refreshToken: before.refresh_token as string,
        resource: MCP_URL,
        fetchFn: inProcessFetch,
      }),
    ).rejects.toThrow(/already used/);
    const refused = await inProcessFetch(MCP_URL, {
      method: "POST",
      body: "{}",
      headers: { Authorization: `Bearer ${provider.saved?.access_token}` },
    });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error.code).toBe("token_revoked");
  });

  it("refuses the next call after the owner revokes the grant or pauses the agent", async () => {
    const { person, agent } = await owner();
    const provider = new MemoryProvider();
    await authorize(provider, person.id, agent.id);
    const client = await connected(provider);
    await pauseAgent(t.deps, agent.id);
    const paused = await client.callTool({ name: "getMe", arguments: {} });
    expect(paused.isError).toBe(true);
    expect(JSON.stringify(paused.content)).toContain("agent_paused");
    await client.close();
    const [grant] = await listAgentTokens(t.deps, agent.id);
    await revokeAgentToken(t.deps, { tokenId: grant?.id ?? "", agentId: agent.id });
    const refused = await inProcessFetch(MCP_URL, {
      method: "POST",
      body: "{}",
      headers: { Authorization: `Bearer ${provider.saved?.access_token}` },
    });
    expect(refused.status).toBe(401);
  });

  it("keeps the Agent API token way, and does not take an access token as agent:<token>", async () => {
    const { person, agent } = await owner();
    const provider = new MemoryProvider();
    await authorize(provider, person.id, agent.id);
    const asAgentToken = await inProcessFetch(MCP_URL, {
      method: "POST",
      body: "{}",
      headers: { Authorization: `Bearer agent:${provider.saved?.access_token}` },
    });
    expect(asAgentToken.status).toBe(401);
  });
});

describe("the endpoints", () => {
  const post = (path: string, body: string, type = "application/x-www-form-urlencoded") =>
    inProcessFetch(`${ORIGIN}${path}`, { method: "POST", body, headers: { "content-type": type } });

  it("answer RFC 6749 error JSON", async () => {
    const bad = await post("/api/oauth/token", "grant_type=password&username=a");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "unsupported_grant_type" });
    const noCode = await post("/api/oauth/token", "grant_type=authorization_code");
    expect(await noCode.json()).toMatchObject({ error: "invalid_request" });
    const twice = await post("/api/oauth/token", "grant_type=a&grant_type=b");
    expect(await twice.json()).toMatchObject({ error: "invalid_request" });
    const foreign = await post(
      "/api/oauth/register",
      JSON.stringify({ redirect_uris: ["http://evil.example/cb"] }),
      "application/json",
    );
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({ error: "invalid_redirect_uri" });
    const notJson = await post("/api/oauth/register", "{", "application/json");
    expect(await notJson.json()).toMatchObject({ error: "invalid_client_metadata" });
    const revoked = await post("/api/oauth/revoke", "token=unknown");
    expect(revoked.status).toBe(200);
    const get = await inProcessFetch(`${ORIGIN}/api/oauth/token`);
    expect(get.status).toBe(405);
  });
});
