import { createAgent, createUser, mintAgentToken } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { agentRoute } from "./api-route";
import { provideDeps } from "./deps";
import { ok } from "./responses";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { LIMIT_REQUESTS_PER_MIN: "3" } });
  provideDeps(t.deps);
});
afterAll(() => t.close());

const route = agentRoute({}, async () => ok({ fine: true }));
const call = (token: string) =>
  route(
    new Request("http://localhost/api/agent/v1/x", {
      headers: { Authorization: `Bearer agent:${token}` },
    }),
    {
      params: Promise.resolve({}),
    },
  );

it("counts every call per agent per minute, reports it in RateLimit-* headers, then answers 429", async () => {
  t.clock.set("2026-03-01T10:00:15Z");
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Limited" });
  const { token } = await mintAgentToken(t.deps, agent.id);
  const second = await mintAgentToken(t.deps, agent.id);

  for (const remaining of [2, 1, 0]) {
    const response = await call(token);
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-limit")).toBe("3");
    expect(response.headers.get("ratelimit-remaining")).toBe(String(remaining));
    expect(response.headers.get("ratelimit-reset")).toBe("45");
  }
  // The limit is the agent's, whichever of its tokens is used.
  const limited = await call(second.token);
  expect(limited.status).toBe(429);
  expect(limited.headers.get("retry-after")).toBe("45");
  expect(limited.headers.get("ratelimit-remaining")).toBe("0");
  expect(await limited.json()).toEqual({
    error: {
      code: "rate_limited",
      message: expect.stringContaining("3 requests"),
      retryAfterSeconds: 45,
    },
  });

  // A refused token does not count against anyone, and the next window starts over.
  expect((await call("sbat_wrong")).status).toBe(401);
  t.clock.set("2026-03-01T10:01:00Z");
  const fresh = await call(token);
  expect(fresh.status).toBe(200);
  expect(fresh.headers.get("ratelimit-remaining")).toBe("2");
  expect(fresh.headers.get("ratelimit-reset")).toBe("60");
});
