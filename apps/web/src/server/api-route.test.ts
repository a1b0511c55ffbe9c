import { createAgent, createUser, mintAgentToken } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { z } from "zod";
import { agentRoute, methods } from "./api-route";
import { provideDeps } from "./deps";
import { ok } from "./responses";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let token: string;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps(t.deps);
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Pipeline" });
  token = (await mintAgentToken(t.deps, agent.id)).token;
});
afterAll(() => t.close());

const context = { params: Promise.resolve({}) };
const call = (handler: ReturnType<typeof agentRoute>, init: RequestInit = {}) =>
  handler(
    new Request("http://localhost/api/agent/v1/x", {
      ...init,
      headers: { Authorization: `Bearer agent:${token}`, ...init.headers },
    }),
    context,
  );

it("answers an unexpected failure with 500 internal_error and no internals", async () => {
  const log = vi.spyOn(console, "error").mockImplementation(() => {});
  const failing = agentRoute({}, async () => {
    throw new Error("connection to 10.0.0.7 refused at /srv/secret.ts:42");
  });
  const response = await call(failing);
  expect(response.status).toBe(500);
  const body = await response.json();
  expect(body.error.code).toBe("internal_error");
  expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.7|secret|stack/);
  expect(body.error.message).toContain(response.headers.get("x-request-id"));
  expect(log).toHaveBeenCalled();
  log.mockRestore();
});

it("validates the body after authenticating, and hands the parsed body to the handler", async () => {
  const echo = agentRoute({ body: z.strictObject({ n: z.number() }) }, async ({ body }) =>
    ok(body),
  );
  const good = await call(echo, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"n":1}',
  });
  expect(await good.json()).toEqual({ n: 1 });
  const bad = await call(echo, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: '{"n":"1"}',
  });
  expect(bad.status).toBe(400);
  expect((await bad.json()).error.issues[0].path).toBe("n");
  const anonymous = await echo(
    new Request("http://localhost/x", { method: "POST", body: "{" }),
    context,
  );
  expect((await anonymous.json()).error.code).toBe("unauthorized");
});

it("answers 405 with Allow for methods a route does not define", async () => {
  const route = methods({ GET: agentRoute({}, async () => ok({})) });
  const response = await route.PUT(new Request("http://localhost/x", { method: "PUT" }), context);
  expect(response.status).toBe(405);
  expect(response.headers.get("allow")).toBe("GET");
  expect((await response.json()).error.code).toBe("method_not_allowed");
});
