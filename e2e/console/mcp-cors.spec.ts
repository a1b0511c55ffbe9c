import { newAgent } from "../support/fixtures";
import { startMediaServer } from "../support/media-server";
import { expect, test } from "../support/test";

/**
 * A browser-based MCP client (a page of its own origin, as MCP Inspector's is) registers for
 * OAuth and calls tools with a token, reading every answer across origins; no cookie goes along.
 */
test("a page of another origin registers a client and calls MCP tools with its token", async ({
  page,
  baseURL,
}) => {
  const client = await startMediaServer({
    "/": { type: "text/html", body: Buffer.from("<!doctype html><title>client</title>") },
  });
  try {
    const { agent, auth } = await newAgent({ name: "Cors Agent" });
    await page.goto(client.url("/"));
    const answers = await page.evaluate(
      async ({ service, authorization }) => {
        const registered = await fetch(`${service}/api/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            client_name: "Page client",
            redirect_uris: [`${location.origin}/callback`],
          }),
        });
        const call = (headers: Record<string, string>) =>
          fetch(`${service}/api/agent/v1/mcp`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": "2025-06-18",
              ...headers,
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "getMe", arguments: {} },
            }),
          });
        const refused = await call({});
        const called = await call({ authorization });
        return {
          registered: [registered.status, (await registered.json()).client_id !== undefined],
          refused: [refused.status, refused.headers.get("www-authenticate") ?? ""],
          called: [called.status, await called.text()],
        };
      },
      { service: baseURL!, authorization: auth.Authorization },
    );
    expect(answers.registered).toEqual([201, true]);
    expect(answers.refused[0]).toBe(401);
    expect(answers.refused[1]).toContain("resource_metadata=");
    expect(answers.called[0]).toBe(200);
    expect(answers.called[1]).toContain(agent.num);
  } finally {
    await client.close();
  }
});
