import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as mcp from "../../app/api/agent/v1/mcp/route";
import * as register from "../../app/api/oauth/register/route";
import * as revoke from "../../app/api/oauth/revoke/route";
import * as token from "../../app/api/oauth/token/route";
import { provideDeps } from "./deps";

/**
 * A browser-based MCP client registers, exchanges codes and calls tools from its own page: the
 * OAuth and MCP endpoints answer its preflight and let it read every answer, with no credentials.
 */
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps(t.deps);
});
afterAll(() => t.close());

const ctx = { params: Promise.resolve({}) };
const from = { Origin: "https://inspector.example" };
const endpoints = { register, revoke, token };
/** A form POST to `/api/oauth/<endpoint>` from the other origin's page. */
const formPost = (endpoint: string, body: string) =>
  new Request(`http://localhost/api/oauth/${endpoint}`, {
    method: "POST",
    headers: { ...from, "content-type": "application/x-www-form-urlencoded" },
    body,
  });

describe("the OAuth endpoints from another origin's page", () => {
  it("answer the preflight of a JSON POST", async () => {
    for (const [name, route] of Object.entries(endpoints)) {
      const answer = await route.OPTIONS();
      expect(answer.status, name).toBe(204);
      expect(answer.headers.get("access-control-allow-origin"), name).toBe("*");
      expect(answer.headers.get("access-control-allow-methods"), name).toBe("POST");
      expect(answer.headers.get("access-control-allow-headers"), name).toBe("content-type");
      expect(answer.headers.get("access-control-allow-credentials"), name).toBeNull();
    }
  });

  it("let the page read a registration, a refusal and a revocation", async () => {
    const registered = await register.POST(
      new Request("http://localhost/api/oauth/register", {
        method: "POST",
        headers: { ...from, "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "Inspector",
          redirect_uris: ["http://localhost:6274/oauth/callback"],
        }),
      }),
      ctx,
    );
    expect(registered.status).toBe(201);
    expect(registered.headers.get("access-control-allow-origin")).toBe("*");

    const refused = await token.POST(
      formPost("token", "grant_type=authorization_code&code=nope&code_verifier=x&client_id=y"),
      ctx,
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await refused.json()).toHaveProperty("error");
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");

    const revoked = await revoke.POST(formPost("revoke", "token=unknown"), ctx);
    expect(revoked.status).toBe(200);
    expect(revoked.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("the MCP endpoint from another origin's page", () => {
  it("answers the preflight of a call with a token and MCP's headers", async () => {
    const answer = await mcp.OPTIONS();
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(answer.headers.get("access-control-allow-headers")?.split(", ")).toEqual(
      expect.arrayContaining(["authorization", "content-type", "mcp-protocol-version"]),
    );
    expect(answer.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("lets the page read a refusal's challenge, so it can find where to authorize", async () => {
    const refused = await mcp.POST(
      new Request("http://localhost/api/agent/v1/mcp", {
        method: "POST",
        headers: {
          ...from,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
      ctx,
    );
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=");
  });
});
