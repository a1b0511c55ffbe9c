import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps, taggedEvent } from "../testing";
import { deliverWebhook, drainWebhook } from "./deliver-webhook";
import { RETRY_AFTER_CAP_MS, retryDelayMs } from "./retry-delay";
import { countWaitingDeliveries, getWebhook, putWebhook, resumeWebhook } from "./webhook-config";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: {
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_SCHEDULE_S: "60,300,900,3600,10800,21600,43200",
      WEBHOOK_DISABLE_AFTER: "3",
    },
  });
});
afterAll(() => t.close());

/** A real loopback receiver answering every POST with `status` and the given headers. */
async function receiver(answer: { status: number; headers?: Record<string, string> }) {
  const received: string[] = [];
  const server = createServer((req, res) => {
    received.push(req.headers["x-svc-event-id"] as string);
    req.resume();
    req.on("end", () => res.writeHead(answer.status, answer.headers).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, answer, received };
}

/** An agent with a webhook to `url` and `n` events waiting for it; their delivery ids. */
async function hookedAgent(url: string, n: number) {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Retried" });
  await putWebhook(t.deps, agent.id, url);
  for (let i = 0; i < n; i++)
    await t.deps.db.transaction((tx) =>
      appendEvents(tx, t.clock.now(), [taggedEvent(agent.id, i)]),
    );
  const rows = await t.deps.db
    .select({ id: schema.webhookDeliveries.id })
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.agentId, agent.id))
    .orderBy(schema.webhookDeliveries.eventSeq);
  return { agentId: agent.id, ids: rows.map((row) => row.id) };
}

/** Milliseconds from now to the delivery's next attempt. */
async function retryInMs(deliveryId: number): Promise<number> {
  const [row] = await t.deps.db
    .select({ next: schema.webhookDeliveries.nextAttemptAt })
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.id, deliveryId));
  return Number(row?.next?.getTime()) - t.clock.now().getTime();
}

describe("the delay before a retry", () => {
  const now = new Date("2026-07-01T12:00:00Z");
  it("is the schedule's step ± 10 %", () => {
    expect(retryDelayMs(60, { status: 500 }, now, () => 0)).toBe(54_000);
    expect(retryDelayMs(60, { status: 500 }, now, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(60, { status: 500 }, now, () => 1)).toBe(66_000);
  });

  it("honours Retry-After on 429 and 503 only, never sooner than the schedule nor past 12 h", () => {
    const mid = () => 0.5;
    expect(retryDelayMs(60, { status: 429, retryAfter: "600" }, now, mid)).toBe(600_000);
    expect(retryDelayMs(60, { status: 503, retryAfter: "600" }, now, mid)).toBe(600_000);
    expect(retryDelayMs(60, { status: 500, retryAfter: "600" }, now, mid)).toBe(60_000);
    expect(retryDelayMs(300, { status: 429, retryAfter: "5" }, now, mid)).toBe(300_000);
    expect(retryDelayMs(60, { status: 429, retryAfter: "999999" }, now, mid)).toBe(
      RETRY_AFTER_CAP_MS,
    );
    const inAnHour = new Date(now.getTime() + 3600_000).toUTCString();
    expect(retryDelayMs(60, { status: 503, retryAfter: inAnHour }, now, mid)).toBe(3600_000);
    expect(retryDelayMs(60, { status: 503, retryAfter: "soon" }, now, mid)).toBe(60_000);
  });
});

describe("a receiver that asks to slow down", () => {
  it("is retried when its Retry-After asks, within the bounds, over a real connection", async () => {
    const later = await receiver({ status: 429, headers: { "Retry-After": "1800" } });
    const { ids: asked } = await hookedAgent(later.url, 1);
    expect(await deliverWebhook(t.deps, asked[0] as number)).toMatchObject({
      status: "failed",
      httpStatus: 429,
    });
    expect(await retryInMs(asked[0] as number)).toBe(1800_000);

    const tooLate = await receiver({ status: 503, headers: { "Retry-After": "86400" } });
    const { ids: capped } = await hookedAgent(tooLate.url, 1);
    await deliverWebhook(t.deps, capped[0] as number);
    expect(await retryInMs(capped[0] as number)).toBe(RETRY_AFTER_CAP_MS);
  });

  it("spreads plain failures' retries over the step ± 10 %, so they do not march in step", async () => {
    const failing = await receiver({ status: 500 });
    const { ids } = await hookedAgent(failing.url, 12);
    // The third failure disables the webhook (WEBHOOK_DISABLE_AFTER 3): one agent per try.
    const delays: number[] = [];
    for (const id of ids.slice(0, 2)) {
      await deliverWebhook(t.deps, id);
      delays.push(await retryInMs(id));
    }
    for (let i = 0; i < 8; i++) {
      const { ids: one } = await hookedAgent(failing.url, 1);
      await deliverWebhook(t.deps, one[0] as number);
      delays.push(await retryInMs(one[0] as number));
    }
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(54_000);
      expect(delay).toBeLessThanOrEqual(66_000);
    }
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it("answering 429 never disables the webhook; 503s still count toward it", async () => {
    const hook = await receiver({ status: 429 });
    const { agentId, ids } = await hookedAgent(hook.url, 6);
    for (const id of ids.slice(0, 5))
      expect(await deliverWebhook(t.deps, id)).toMatchObject({ status: "failed" });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({
      state: "active",
      consecutiveFailures: 0,
      lastError: "answered 429",
    });
    hook.answer.status = 503;
    for (const id of ids.slice(5)) await deliverWebhook(t.deps, id);
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ consecutiveFailures: 1 });
  });
});

describe("a webhook set anew while disabled", () => {
  it("stays disabled, its dead events dead, until Resume, which alone requeues them", async () => {
    const gone = await receiver({ status: 410 });
    const { agentId, ids } = await hookedAgent(gone.url, 2);
    expect(await deliverWebhook(t.deps, ids[0] as number)).toMatchObject({ status: "dead" });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ state: "disabled" });

    const fixed = await receiver({ status: 200 });
    const { webhook, secret } = await putWebhook(t.deps, agentId, fixed.url);
    // The answer says what it did: a new URL and secret, the webhook still off.
    expect(secret).toMatch(/^whsec_/);
    expect(webhook).toMatchObject({ url: fixed.url, state: "disabled", consecutiveFailures: 1 });
    expect(await countWaitingDeliveries(t.deps, agentId)).toEqual({ waiting: 2, held: 1 });
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 0, more: false });
    expect(fixed.received).toEqual([]);

    expect(await resumeWebhook(t.deps, agentId)).toMatchObject({
      webhook: { state: "active", consecutiveFailures: 0 },
      requeued: 2,
    });
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 2, more: false });
    expect(fixed.received).toHaveLength(2);
  });

  it("an active webhook set anew starts a new failure count", async () => {
    const failing = await receiver({ status: 500 });
    const { agentId, ids } = await hookedAgent(failing.url, 1);
    await deliverWebhook(t.deps, ids[0] as number);
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ consecutiveFailures: 1 });
    const { webhook } = await putWebhook(t.deps, agentId, failing.url);
    expect(webhook).toMatchObject({ state: "active", consecutiveFailures: 0 });
  });
});
