import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeps } from "../create-deps";
import { appendEvents } from "../events/append-event";
import { createTestDeps, taggedEvent } from "../testing";
import { deliverWebhook, drainWebhook } from "./deliver-webhook";
import { listWebhookDeliveries } from "./delivery-log";
import { deliveryIdsOf, newHookedAgent, receiver, verifies } from "./test-receiver";
import {
  deleteWebhook,
  getWebhook,
  putWebhook,
  resumeWebhook,
  rotateWebhookSecret,
} from "./webhook-config";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: {
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_SCHEDULE_S: "60,300",
      WEBHOOK_DISABLE_AFTER: "4",
      WEBHOOK_TIMEOUT_MS: "400",
    },
  });
});
afterAll(() => t.close());

const newAgent = () => newHookedAgent(t.deps);

const emit = (agentId: string, n = 1) =>
  t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agentId, n)]));

const deliveryIds = (agentId: string) => deliveryIdsOf(t.deps, agentId);

const jobsFor = async (deliveryId: number) =>
  (await t.deps.db.execute(sql`
    select run_at from graphile_worker.jobs where key = ${`webhook:${deliveryId}`}
  `)) as unknown as { run_at: Date }[];

/** Agents whose drains were woken (decision 0055), in the order this process heard them. */
const woken: string[] = [];
beforeAll(async () => {
  await t.deps.notifier.subscribe("webhook-drains", (agentId) => {
    if (agentId) woken.push(agentId);
  });
});

/** How many wake-ups the agent's drain has had, once those of the commits so far arrived. */
async function drainWakes(agentId: string, atLeast: number): Promise<number> {
  const count = () => woken.filter((id) => id === agentId).length;
  for (let waited = 0; count() < atLeast && waited < 5000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
  // A moment more, so a wake-up too many would be counted too.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return count();
}

describe("configuration", () => {
  it("PUT checks the URL and shows the secret once; GET, rotate and DELETE", async () => {
    const agentId = await newAgent();
    expect(await getWebhook(t.deps, agentId)).toBeNull();
    for (const url of [
      "http://example.com/h",
      "https://10.0.0.1/h",
      "https://user:pw@example.com/",
    ])
      await expect(putWebhook(t.deps, agentId, url)).rejects.toMatchObject({
        code: "validation_error",
      });
    await expect(rotateWebhookSecret(t.deps, agentId)).rejects.toMatchObject({ code: "not_found" });
    const put = await putWebhook(t.deps, agentId, "https://hooks.example.com/in");
    expect(put.secret).toMatch(/^whsec_/);
    expect(put.webhook).toMatchObject({
      url: "https://hooks.example.com/in",
      state: "active",
      consecutiveFailures: 0,
      rotationGraceUntil: null,
    });
    expect(JSON.stringify(await getWebhook(t.deps, agentId))).not.toContain(put.secret);
    const rotated = await rotateWebhookSecret(t.deps, agentId);
    expect(rotated.secret).not.toBe(put.secret);
    expect(Date.parse(rotated.webhook.rotationGraceUntil as string)).toBe(
      t.clock.now().getTime() + 24 * 3600_000,
    );
    expect(await deleteWebhook(t.deps, agentId)).toEqual({ deleted: true });
    expect(await deleteWebhook(t.deps, agentId)).toEqual({ deleted: false });
  });
});

describe("delivery", () => {
  it("enqueues only events after the webhook exists, in the event's transaction; signs them", async () => {
    const agentId = await newAgent();
    const hook = await receiver();
    await emit(agentId, 0); // before the webhook: never delivered
    const { secret } = await putWebhook(t.deps, agentId, hook.url);
    const [event] = await emit(agentId, 1);
    const [id] = await deliveryIds(agentId);
    expect(await deliveryIds(agentId)).toHaveLength(1);
    expect(await drainWakes(agentId, 1)).toBe(1);
    await t.deps.db
      .transaction(async (tx) => {
        await appendEvents(tx, t.clock.now(), [taggedEvent(agentId, "rolled back")]);
        throw new Error("roll back");
      })
      .catch(() => {});
    expect(await deliveryIds(agentId)).toHaveLength(1);
    expect(await drainWakes(agentId, 1)).toBe(1); // none for what rolled back

    t.clock.advance(1500); // the delivery runs 1.5 s after the commit: that is its lag
    expect(await deliverWebhook(t.deps, id as number)).toEqual({
      status: "succeeded",
      httpStatus: 200,
      lagMs: 1500,
    });
    const [got] = hook.received;
    expect(got?.headers).toMatchObject({
      "content-type": "application/json",
      "x-svc-event-id": event?.id,
      "x-svc-event-type": "contact.added",
      "x-svc-delivery-attempt": "1",
    });
    expect(JSON.parse(got?.body ?? "")).toMatchObject({ id: event?.id, seq: event?.seq });
    expect(verifies(got?.headers["x-svc-signature"] as string, got?.body ?? "", secret)).toBe(true);
    // A receiver built on Stripe's verifier accepts it as is (same header format and tolerance).
    const verified = new Stripe("sk_test_unused").webhooks.constructEvent(
      got?.body ?? "",
      got?.headers["x-svc-signature"] as string,
      secret,
      300,
      undefined,
      Math.floor(t.clock.now().getTime() / 1000), // received "now" on the test's clock
    );
    expect(verified).toMatchObject({ id: event?.id });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ consecutiveFailures: 0 });
    expect((await getWebhook(t.deps, agentId))?.lastSuccessAt).not.toBeNull();
    // Delivered once: a repeated job does nothing.
    expect(await deliverWebhook(t.deps, id as number)).toEqual({ status: "skipped" });
  });

  it("each commit wakes the agent's drain; one drain delivers what committed, in order", async () => {
    const agentId = await newAgent();
    const hook = await receiver();
    await putWebhook(t.deps, agentId, hook.url);
    const seqs = [];
    for (let n = 0; n < 5; n++) seqs.push((await emit(agentId, n))[0]?.seq);
    expect(await drainWakes(agentId, 5)).toBe(5);
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 5, more: false });
    expect(hook.received.map((r) => JSON.parse(r.body).seq)).toEqual(seqs);
    // Nothing is due any more: a second drain sends nothing.
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 0, more: false });
    expect(hook.received).toHaveLength(5);
  });

  it("a drain reschedules a failed delivery and goes on with the next; the retry comes when due", async () => {
    const agentId = await newAgent();
    let answers = 0;
    const hook = await receiver(() => ({ status: answers++ === 0 ? 500 : 200 }));
    await putWebhook(t.deps, agentId, hook.url);
    for (let n = 0; n < 3; n++) await emit(agentId, n);
    const ids = (await deliveryIds(agentId)) as [number, number, number];
    const outcomes: [string, number][] = [];
    const drained = await drainWebhook(t.deps, agentId, 60_000, (outcome, id) =>
      outcomes.push([outcome.status, id]),
    );
    expect(drained).toEqual({ attempts: 3, more: false });
    expect(outcomes).toEqual([
      ["failed", ids[0]],
      ["succeeded", ids[1]],
      ["succeeded", ids[2]],
    ]);
    expect(await jobsFor(ids[0])).toHaveLength(1);
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 0, more: false });
    t.clock.advance(66_000); // the first step (60 s) at its latest jitter
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 1, more: false });
    const [first] = (await listWebhookDeliveries(t.deps, agentId)).filter((d) => d.attempts === 2);
    expect(first).toMatchObject({ status: "succeeded" });
  });

  it("a drain past its time slice stops and says more is due", async () => {
    const agentId = await newAgent();
    const hook = await receiver();
    await putWebhook(t.deps, agentId, hook.url);
    for (let n = 0; n < 3; n++) await emit(agentId, n);
    expect(await drainWebhook(t.deps, agentId, 0)).toEqual({ attempts: 1, more: true });
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 2, more: false });
  });

  it("settles a success without the WAL flush for that statement only: the connection's next commits wait", async () => {
    const agentId = await newAgent();
    const hook = await receiver();
    await putWebhook(t.deps, agentId, hook.url);
    await emit(agentId);
    const [id] = (await deliveryIds(agentId)) as [number];
    // One connection, so the check runs where the settle did.
    const single = createDeps(t.config, { clock: t.clock, poolSize: 1 });
    try {
      expect(await deliverWebhook(single.deps, id)).toMatchObject({ status: "succeeded" });
      const [setting] = await single.deps.sql`show synchronous_commit`;
      expect(setting?.synchronous_commit).toBe("on");
    } finally {
      await single.close();
    }
  });

  it("during a rotation's grace, each delivery carries two signatures, one per secret", async () => {
    const agentId = await newAgent();
    const hook = await receiver();
    const first = await putWebhook(t.deps, agentId, hook.url);
    const second = await rotateWebhookSecret(t.deps, agentId);
    await emit(agentId);
    const [id] = await deliveryIds(agentId);
    await deliverWebhook(t.deps, id as number);
    const [got] = hook.received;
    const header = got?.headers["x-svc-signature"] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifies(header, got?.body ?? "", first.secret)).toBe(true);
    expect(verifies(header, got?.body ?? "", second.secret)).toBe(true);
  });

  it("retries failures on the schedule, then the event is dead", async () => {
    const agentId = await newAgent();
    const hook = await receiver(() => ({ status: 500 }));
    await putWebhook(t.deps, agentId, hook.url);
    await emit(agentId);
    const [id] = (await deliveryIds(agentId)) as [number];
    const before = t.clock.now().getTime();
    expect(await deliverWebhook(t.deps, id)).toMatchObject({ status: "failed", httpStatus: 500 });
    const [retry] = await jobsFor(id).then((jobs) => jobs.sort((a, b) => +b.run_at - +a.run_at));
    // The first step, 60 s, ± 10 % jitter (failing-receivers.test.ts).
    const retryIn = new Date(retry?.run_at as Date).getTime() - before;
    expect(retryIn).toBeGreaterThanOrEqual(54_000);
    expect(retryIn).toBeLessThanOrEqual(66_000);
    expect(await deliverWebhook(t.deps, id)).toMatchObject({ status: "failed" });
    expect(await deliverWebhook(t.deps, id)).toMatchObject({ status: "dead" });
    expect(hook.received.map((r) => r.headers["x-svc-delivery-attempt"])).toEqual(["1", "2", "3"]);
    const [delivery] = await listWebhookDeliveries(t.deps, agentId);
    expect(delivery).toMatchObject({ status: "dead", attempts: 3, httpStatus: 500 });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({
      consecutiveFailures: 3,
      lastError: "answered 500",
      state: "active",
    });
  });

  it("counts a redirect, a timeout and a refused connection as failures", async () => {
    const agentId = await newAgent();
    let mode = 302;
    const hook = await receiver(() =>
      mode === 0 ? { status: 200, delayMs: 1000 } : { status: mode },
    );
    await putWebhook(t.deps, agentId, hook.url);
    await emit(agentId, 1);
    await emit(agentId, 2);
    const [a, b] = (await deliveryIds(agentId)) as [number, number];
    expect(await deliverWebhook(t.deps, a)).toMatchObject({ status: "failed", httpStatus: 302 });
    expect(hook.received).toHaveLength(1); // the redirect was not followed
    mode = 0;
    expect(await deliverWebhook(t.deps, b)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("no answer within 400 ms"),
    });
    await putWebhook(t.deps, agentId, "http://127.0.0.1:9/closed");
    await emit(agentId, 3);
    const c = (await deliveryIds(agentId)).at(-1) as number;
    expect(await deliverWebhook(t.deps, c)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("ECONNREFUSED"),
    });
  });

  it("410 kills the event and disables the webhook; resume re-enables it and requeues", async () => {
    const agentId = await newAgent();
    let status = 410;
    const hook = await receiver(() => ({ status }));
    await putWebhook(t.deps, agentId, hook.url);
    await emit(agentId, 1);
    await emit(agentId, 2);
    const [a, b] = (await deliveryIds(agentId)) as [number, number];
    expect(await deliverWebhook(t.deps, a)).toMatchObject({ status: "dead", httpStatus: 410 });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ state: "disabled" });
    // The other waiting delivery died with it; a new event is held, not attempted.
    expect(await deliverWebhook(t.deps, b)).toEqual({ status: "skipped" });
    await emit(agentId, 3);
    expect(await deliveryIds(agentId)).toHaveLength(3);

    status = 200;
    const before = await drainWakes(agentId, 2); // the two events that committed pending
    expect(await resumeWebhook(t.deps, agentId)).toMatchObject({
      webhook: { state: "active", consecutiveFailures: 0 },
      requeued: 3,
    });
    expect(await drainWakes(agentId, before + 1)).toBe(before + 1);
    expect(await deliverWebhook(t.deps, a)).toMatchObject({ status: "succeeded" });
    expect(await deliverWebhook(t.deps, b)).toMatchObject({ status: "succeeded" });
  });

  it(`disables the webhook after WEBHOOK_DISABLE_AFTER consecutive failures`, async () => {
    const agentId = await newAgent();
    const hook = await receiver(() => ({ status: 503 }));
    await putWebhook(t.deps, agentId, hook.url);
    for (let n = 0; n < 4; n++) await emit(agentId, n);
    const ids = await deliveryIds(agentId);
    for (const id of ids.slice(0, 3))
      expect(await deliverWebhook(t.deps, id)).toMatchObject({ status: "failed" });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ state: "active" });
    expect(await deliverWebhook(t.deps, ids[3] as number)).toMatchObject({ status: "dead" });
    expect(await getWebhook(t.deps, agentId)).toMatchObject({
      state: "disabled",
      consecutiveFailures: 4,
    });
  });

  it("re-checks the address at delivery: a host resolving to a private address is refused", async () => {
    const agentId = await newAgent();
    await putWebhook(t.deps, agentId, "https://hooks.example.com/in");
    // As if DNS had changed since configuration: the stored host now means this machine.
    await t.deps.db
      .update(schema.webhooks)
      .set({ url: "https://localhost/in" })
      .where(eq(schema.webhooks.agentId, agentId));
    await emit(agentId);
    const [id] = (await deliveryIds(agentId)) as [number];
    expect(await deliverWebhook(t.deps, id)).toMatchObject({
      status: "failed",
      // Only "not allowed": where the name resolves is not told (no DNS oracle).
      error: "the URL is not allowed",
    });
  });
});
