import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { Readiness } from "@switchboard/contract";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createWorkerServer } from "./health";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let base = "";
let server: ReturnType<typeof createWorkerServer>;
beforeAll(async () => {
  t = await createTestDeps({ env: { METRICS_TOKEN: "scrape-me" } });
  server = createWorkerServer(t.deps);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

it("is ready with every migration applied, and not ready (503) when one is missing", async () => {
  const ready = await fetch(`${base}/readyz`);
  expect(ready.status).toBe(200);
  const body = Readiness.parse(await ready.json());
  expect(body.status).toBe("ready");
  expect(body.checks.migrations?.applied).toBe(body.checks.migrations?.expected);

  // A new version started against a database nobody migrated yet.
  await t.deps.sql`delete from drizzle.__drizzle_migrations
    where id = (select max(id) from drizzle.__drizzle_migrations)`;
  const behind = await fetch(`${base}/readyz`);
  expect(behind.status).toBe(503);
  expect(Readiness.parse(await behind.json())).toMatchObject({
    status: "not_ready",
    checks: { database: "ok" },
  });
  expect((await fetch(`${base}/healthz`)).status).toBe(200); // alive all the same
});

it("serves metrics only with METRICS_TOKEN, the job queue's depth among them", async () => {
  const missing = await fetch(`${base}/metrics`);
  expect(missing.status).toBe(401);
  expect(await missing.json()).toEqual({
    error: { code: "unauthorized", message: "Metrics need Authorization: Bearer <METRICS_TOKEN>" },
  });
  expect(
    (await fetch(`${base}/metrics`, { headers: { Authorization: "Bearer wrong-token" } })).status,
  ).toBe(401);
  const scraped = await fetch(`${base}/metrics`, {
    headers: { Authorization: "Bearer scrape-me" },
  });
  expect(scraped.status).toBe(200);
  const text = await scraped.text();
  expect(text).toMatch(/^switchboard_job_queue_ready \d+$/m);
  expect(text).toMatch(/^switchboard_job_queue_oldest_seconds [\d.]+$/m);
  expect(text).toMatch(/^switchboard_stream_connections \d+$/m);
  // This process's pool, counted in pg_stat_activity: the test's own connections are open.
  expect(text).toMatch(/^switchboard_db_pool_size [1-9]\d*$/m);
  expect(text).toMatch(/^switchboard_db_pool_connections\{state="idle"\} [1-9]\d*$/m);
  expect(text).toMatch(/^switchboard_webhook_delivery_lag_seconds_count \d+$/m);
  expect(text).toContain("process_cpu_seconds_total");
});

it("without METRICS_TOKEN serves metrics only to this machine, a proxy's client counting", async () => {
  // One trusted proxy on this machine: its clients are who scrapes.
  const config = { ...t.deps.config, METRICS_TOKEN: undefined, TRUSTED_PROXIES: ["127.0.0.1"] };
  const open = createWorkerServer({ ...t.deps, config });
  await new Promise<void>((resolve) => open.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(open.address() as AddressInfo).port}/metrics`;
  try {
    const local = await fetch(url, { headers: { "X-Forwarded-For": "127.0.0.1" } });
    expect(local.status).toBe(200);
    expect(await local.text()).toContain("process_cpu_seconds_total");
    const remote = await fetch(url, { headers: { "X-Forwarded-For": "127.0.0.1, 203.0.113.9" } });
    expect(remote.status).toBe(403);
    expect(await remote.json()).toEqual({
      error: {
        code: "forbidden",
        message: "Metrics answer only on this machine, or set METRICS_TOKEN",
      },
    });
  } finally {
    await new Promise((resolve) => open.close(resolve));
  }
});

/** This machine's address on a real interface: a peer that is not loopback. */
function outsideAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;
  if (!address) throw new Error("this test needs a network interface other than loopback");
  return address;
}

it("believes X-Forwarded-For only from a listed proxy: a direct peer cannot claim loopback", async () => {
  const outside = outsideAddress();
  const scrape = async (trusted: string[], forwardedFor: string) => {
    const config = { ...t.deps.config, METRICS_TOKEN: undefined, TRUSTED_PROXIES: trusted };
    const open = createWorkerServer({ ...t.deps, config });
    await new Promise<void>((resolve) => open.listen(0, outside, resolve));
    try {
      const url = `http://${outside}:${(open.address() as AddressInfo).port}/metrics`;
      return (await fetch(url, { headers: { "X-Forwarded-For": forwardedFor } })).status;
    } finally {
      await new Promise((resolve) => open.close(resolve));
    }
  };
  for (const claim of ["127.0.0.1", "::1", "1.2.3.4, 127.0.0.1"]) {
    expect(await scrape([], claim), claim).toBe(403);
    expect(await scrape(["10.0.0.0/8"], claim), claim).toBe(403);
  }
  // The same header from a listed proxy is its client's address.
  expect(await scrape([`${outside}/32`], "127.0.0.1")).toBe(200);
});
