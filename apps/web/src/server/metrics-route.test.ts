import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET as metrics } from "../../app/api/metrics/route";
import { PEER_HEADER } from "./client-network";
import { provideDeps } from "./deps";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const scrape = (headers: Record<string, string>) =>
  metrics(new Request("http://x/api/metrics", { headers }));

it("answers only on this machine without METRICS_TOKEN, the proxied client counting", async () => {
  provideDeps(t.deps);
  expect((await scrape({ [PEER_HEADER]: "127.0.0.1" })).status).toBe(200);
  expect((await scrape({ [PEER_HEADER]: "::1" })).status).toBe(200);
  expect((await scrape({ [PEER_HEADER]: "203.0.113.9" })).status).toBe(403);
  // A client-sent X-Forwarded-For claiming loopback is ignored with no trusted proxy.
  expect(
    (await scrape({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": "127.0.0.1" })).status,
  ).toBe(403);
  // Behind one trusted proxy on this machine, the client is the proxy's client.
  provideDeps({ ...t.deps, config: { ...t.deps.config, TRUSTED_PROXIES: ["127.0.0.1"] } });
  expect(
    (await scrape({ [PEER_HEADER]: "127.0.0.1", "x-forwarded-for": "203.0.113.9" })).status,
  ).toBe(403);
  // A peer that is not a listed proxy names no one: loopback claims from it count for nothing.
  provideDeps({ ...t.deps, config: { ...t.deps.config, TRUSTED_PROXIES: ["10.0.0.0/8"] } });
  for (const claim of ["127.0.0.1", "::1", "1.2.3.4, 127.0.0.1"])
    expect(
      (await scrape({ [PEER_HEADER]: "203.0.113.9", "x-forwarded-for": claim })).status,
      claim,
    ).toBe(403);
  expect((await scrape({ [PEER_HEADER]: "10.0.0.7", "x-forwarded-for": "127.0.0.1" })).status).toBe(
    200,
  );
});

it("answers only its Bearer token when METRICS_TOKEN is set, from anywhere", async () => {
  provideDeps({ ...t.deps, config: { ...t.deps.config, METRICS_TOKEN: "scrape-me" } });
  expect((await scrape({ [PEER_HEADER]: "127.0.0.1" })).status).toBe(401);
  const allowed = await scrape({ [PEER_HEADER]: "203.0.113.9", authorization: "Bearer scrape-me" });
  expect(allowed.status).toBe(200);
  expect(await allowed.text()).toMatch(/# HELP/);
});
