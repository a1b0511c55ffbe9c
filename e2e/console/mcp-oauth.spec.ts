import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { refreshAuthorization, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Page } from "@playwright/test";
import { MemoryOAuthProvider } from "@switchboard/web/testing";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

/**
 * An MCP client that has only the URL (issue 38): the official SDK client's OAuth provider goes
 * through discovery, registration (dynamic, and a client metadata document served here), PKCE,
 * the console's authorization page in Chromium, the token exchange and tool calls as the agent
 * the owner picked; then refresh, reuse, revocation in the console, Deny and the refusals.
 */
const base = () => `http://localhost:${process.env.E2E_PORT}`;
const mcpUrl = () => new URL(`${base()}/api/agent/v1/mcp`);

/** The redirect target (a loopback app, RFC 8252) and the client metadata documents. */
let server: Server;
let origin = "";
const documents: Record<string, unknown> = {};
test.beforeAll(async () => {
  server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (path === "/callback") return response.writeHead(200).end("back in the app");
    const document = documents[path];
    if (document === undefined) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const redirect = () => `${origin}/callback`;

/** The SDK's provider interface, kept in memory, sent back to the loopback app above. */
class MemoryProvider extends MemoryOAuthProvider {
  constructor(name: string, info?: OAuthClientInformationMixed) {
    super({ name, redirect: redirect(), state: "e2e-state" }, info);
  }
}

/** The SDK up to its redirect: answers the transport (to finish with) and the page to open. */
async function startAuthorization(provider: MemoryProvider) {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
  await expect(new Client({ name: "e2e", version: "1" }).connect(transport)).rejects.toThrow(
    UnauthorizedError,
  );
  const url = provider.authorizationUrl;
  if (!url) throw new Error("the SDK did not redirect");
  return { transport, url };
}

/** Back at the redirect URI: its query. */
async function returned(page: Page): Promise<URLSearchParams> {
  await page.waitForURL((url) => url.href.startsWith(redirect()));
  return new URL(page.url()).searchParams;
}

async function connected(provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
  return client;
}

async function createAgent(page: Page, name: string) {
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-name").fill(name);
  await page.getByTestId("agent-create").click();
  await expect(page.getByTestId("agent-list")).toContainText(name);
}

const getMe = async (client: Client) =>
  (await client.callTool({ name: "getMe", arguments: {} })).structuredContent as {
    displayName: string;
  };

test("a client with only the URL registers, is allowed on the console page and acts as the chosen agent", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signUp(page, "Olga Oauth");
  await createAgent(page, "Other Agent");
  await createAgent(page, "Picked Agent");

  // Dynamic registration: "not verified".
  const registered = new MemoryProvider("E2E Registered App");
  const first = await startAuthorization(registered);
  await page.goto(first.url.href);
  await expect(page.getByTestId("oauth-client-name")).toHaveText("E2E Registered App");
  await expect(page.getByTestId("oauth-client-source")).toContainText("not verified");
  await page.getByTestId("oauth-agent").selectOption({ label: "Picked Agent" });
  await page.getByTestId("oauth-allow").click();
  const back = await returned(page);
  expect(back.get("state")).toBe("e2e-state");
  await first.transport.finishAuth(back.get("code") ?? "");
  const client = await connected(registered);
  expect((await getMe(client)).displayName).toBe("Picked Agent");
  await client.close();

  // An access token no longer good: the SDK refreshes (rotating) and goes on.
  const before = registered.saved as OAuthTokens;
  registered.saved = { ...before, access_token: "expired" };
  const refreshed = await connected(registered);
  expect((await getMe(refreshed)).displayName).toBe("Picked Agent");
  await refreshed.close();
  expect(registered.saved?.refresh_token).not.toBe(before.refresh_token);

  // A client metadata document (its URL is the client_id), with the host shown.
  const documentUrl = `${origin}/client.json`;
  documents["/client.json"] = {
    client_id: documentUrl,
    client_name: "E2E Document App",
    redirect_uris: [redirect()],
  };
  const documented = new MemoryProvider("ignored", { client_id: documentUrl });
  const second = await startAuthorization(documented);
  await page.goto(second.url.href);
  await expect(page.getByTestId("oauth-client-name")).toHaveText("E2E Document App");
  await expect(page.getByTestId("oauth-client-source")).toContainText(new URL(origin).host);
  await page.getByTestId("oauth-agent").selectOption({ label: "Other Agent" });
  await page.getByTestId("oauth-allow").click();
  await second.transport.finishAuth((await returned(page)).get("code") ?? "");
  const other = await connected(documented);
  expect((await getMe(other)).displayName).toBe("Other Agent");
  await other.close();

  // The reused refresh token is refused and revokes its family.
  const metadata = await (await fetch(`${base()}/.well-known/oauth-authorization-server`)).json();
  await expect(
    refreshAuthorization(base(), {
      metadata,
      clientInformation: registered.info as OAuthClientInformationMixed,
      refreshToken: before.refresh_token as string,
      resource: mcpUrl(),
    }),
  ).rejects.toThrow(/already used/);
  const afterReuse = await fetch(mcpUrl(), {
    method: "POST",
    headers: { Authorization: `Bearer ${registered.saved?.access_token}` },
    body: "{}",
  });
  expect(afterReuse.status).toBe(401);

  // The document client's grant, on its agent's token list: revoked there, refused next call.
  await page.goto(`${base()}/agents`);
  await page.getByTestId("agent-list").getByRole("link", { name: "Other Agent" }).click();
  await page
    .getByRole("navigation", { name: "Other Agent: sections" })
    .getByRole("link", { name: "Tokens" })
    .click();
  const row = page.getByTestId("token-row").filter({ hasText: "E2E Document App" });
  await expect(row).toBeVisible();
  await expect(row.getByTestId("token-last-used")).not.toHaveText(/never/i);
  await row.getByTestId("token-revoke").click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click();
  await expect(row).toContainText("revoked");
  const revoked = await fetch(mcpUrl(), {
    method: "POST",
    headers: { Authorization: `Bearer ${documented.saved?.access_token}` },
    body: "{}",
  });
  expect(revoked.status).toBe(401);
  expect(revoked.headers.get("www-authenticate")).toContain("resource_metadata=");
});

test("Deny, a wrong resource, a missing verifier, a foreign redirect URI and an unsafe metadata URL are refused", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const provider = new MemoryProvider("E2E Denied App");
  const { url } = await startAuthorization(provider);
  // Signed out: sign in first, asked to come back to the authorization request as it was.
  await page.goto(url.href);
  await page.waitForURL(/\/signin\?callbackUrl=/);
  const back = new URL(page.url()).searchParams.get("callbackUrl") ?? "";
  expect(back).toBe(`${url.pathname}${url.search}`);
  await signUp(page, "Dora Deny");

  // No agent yet: one is made on the authorization page itself, and offered at once.
  await page.goto(url.href);
  await expect(page.getByTestId("oauth-no-agent")).toBeVisible();
  await expect(page.getByTestId("oauth-allow")).toBeDisabled();
  await page.getByTestId("agent-name").fill("Deny Agent");
  await page.getByTestId("agent-create").click();
  await expect(page.getByTestId("oauth-agent")).toContainText("Deny Agent");

  // Deny: access_denied back at the redirect URI, with the state.
  await page.getByTestId("oauth-deny").click();
  const denied = await returned(page);
  expect(denied.get("error")).toBe("access_denied");
  expect(denied.get("state")).toBe("e2e-state");
  expect(denied.get("code")).toBeNull();

  // A wrong resource goes back to the (registered) redirect URI as invalid_target.
  const wrongResource = new URL(url);
  wrongResource.searchParams.set("resource", `${base()}/api/v1`);
  await page.goto(wrongResource.href);
  expect((await returned(page)).get("error")).toBe("invalid_target");

  // A foreign redirect URI or an unsafe metadata URL: refused on the page, nobody is sent off.
  const foreign = new URL(url);
  foreign.searchParams.set("redirect_uri", "https://evil.example/cb");
  await page.goto(foreign.href);
  await expect(page.getByTestId("oauth-error")).toContainText("redirect_uri");
  expect(page.url()).toContain("/oauth/authorize");
  const unsafe = new URL(url);
  unsafe.searchParams.set("client_id", "https://10.0.0.1/client.json");
  await page.goto(unsafe.href);
  await expect(page.getByTestId("oauth-error")).toContainText("not allowed");

  // Allowed, but exchanged without the PKCE verifier: refused.
  await page.goto(url.href);
  await page.getByTestId("oauth-allow").click();
  const code = (await returned(page)).get("code") ?? "";
  const exchange = await fetch(`${base()}/api/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: provider.info?.client_id ?? "",
      redirect_uri: redirect(),
    }).toString(),
  });
  expect(exchange.status).toBe(400);
  expect(await exchange.json()).toMatchObject({ error: "invalid_request" });
});
