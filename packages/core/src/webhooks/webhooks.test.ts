import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeps } from "../create-deps";
import { listPersonEmailThreads } from "../email/person-inbox";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { metrics } from "../metrics";
import { createTestDeps, taggedEvent } from "../testing";
import { answerExcerpt, deliverWebhook, drainWebhook } from "./deliver-webhook";
import { listWebhookDeliveries } from "./delivery-log";
import { getWebhookDeliveryDetail } from "./describe-delivery";
import { listWebhookAlerts, PLATFORM_USER } from "./owner-alerts";
import { redeliverWebhookEvent } from "./retry-delivery";
import {
  countWaitingDeliveries,
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

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

/** A real local receiver answering each POST with `answer()`'s status (after `delayMs`). */
async function receiver(
  answer: () => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      const { status, delayMs } = answer();
      setTimeout(() => {
        res.statusCode = status;
        if (status >= 300 && status < 400) res.setHeader("Location", "http://127.0.0.1:1/");
        res.end();
      }, delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return { url, received };
}

async function newAgent() {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Hooked" });
  return agent.id;
}

const emit = (agentId: string, n = 1) =>
  t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agentId, n)]));

async function deliveryIds(agentId: string) {
  const rows = await t.deps.db
    .select({ id: schema.webhookDeliveries.id })
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.agentId, agentId))
    .orderBy(schema.webhookDeliveries.eventSeq);
  return rows.map((r) => r.id);
}

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

/** Checks an `X-Svc-Signature` against a secret the way a receiver does. */
function verifies(header: string, body: string, secret: string): boolean {
  const parts = header.split(",");
  const time = parts.find((p) => p.startsWith("t="))?.slice(2);
  const expected = createHmac("sha256", secret).update(`${time}.${body}`).digest("hex");
  return parts.some((p) => p === `v1=${expected}`);
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

/** A real local receiver answering each POST with the status and raw body `answer` gives. */
async function rawReceiver(answer: (n: number) => { status: number; body: Buffer | string }) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      const reply = answer(received.length);
      res.statusCode = reply.status;
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, ids: () => received.map((r) => r.headers["x-svc-event-id"]) };
}

const eventIds = async (agentId: string) =>
  (
    await t.deps.db
      .select({ id: schema.events.id })
      .from(schema.events)
      .where(eq(schema.events.agentId, agentId))
      .orderBy(schema.events.seq)
  ).map((row) => row.id);

describe("nothing is lost across a disable", () => {
  it("events committed while the webhook is disabled are delivered after resume, in seq order, after the dead ones", async () => {
    const agentId = await newAgent();
    let status = 410;
    const hook = await rawReceiver(() => ({ status, body: "" }));
    await putWebhook(t.deps, agentId, hook.url);
    await emit(agentId, 1); // answered 410: dead, the webhook disabled
    await drainWebhook(t.deps, agentId);
    expect(await getWebhook(t.deps, agentId)).toMatchObject({ state: "disabled" });
    await emit(agentId, 2);
    await emit(agentId, 3);
    expect(await countWaitingDeliveries(t.deps, agentId)).toEqual({ waiting: 3, held: 2 });
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 0, more: false });
    expect(hook.received).toHaveLength(1);

    status = 200;
    expect((await resumeWebhook(t.deps, agentId)).requeued).toBe(3);
    await drainWebhook(t.deps, agentId);
    const [first, second, third] = await eventIds(agentId);
    expect(hook.ids()).toEqual([first, first, second, third]);
    expect(hook.received.slice(1).map((r) => r.headers["x-svc-delivery-attempt"])).toEqual([
      "1",
      "1",
      "1",
    ]);
    expect(await countWaitingDeliveries(t.deps, agentId)).toEqual({ waiting: 0, held: 0 });
  });
});

describe("a receiver's answer never stalls its deliveries", () => {
  it("an answer with NUL bytes is stored sanitised and the three later events are delivered", async () => {
    const agentId = await newAgent();
    const hook = await rawReceiver((n) => ({
      status: 200,
      body: n === 1 ? Buffer.from("ok\0bye \ud800 \u0001", "utf8") : "fine",
    }));
    await putWebhook(t.deps, agentId, hook.url);
    for (let n = 0; n < 4; n++) await emit(agentId, n);
    expect(await drainWebhook(t.deps, agentId)).toEqual({ attempts: 4, more: false });
    const ids = await eventIds(agentId);
    expect(hook.ids()).toEqual(ids);
    const statuses = await listWebhookDeliveries(t.deps, agentId);
    expect(statuses.map((d) => d.status)).toEqual([
      "succeeded",
      "succeeded",
      "succeeded",
      "succeeded",
    ]);
    const detail = await getWebhookDeliveryDetail(t.deps, agentId, ids[0] as string);
    expect(detail.response.excerpt).toBe("okbye \ufffd ");
  });

  it("an attempt that cannot be recorded is counted and recorded as an internal error; the drain goes on", async () => {
    const agentId = await newAgent();
    const hook = await rawReceiver((n) => ({ status: 200, body: n === 1 ? "REFUSE-ME" : "ok" }));
    await putWebhook(t.deps, agentId, hook.url);
    // Any failure to record (here: the database refusing the row as written) must not block.
    await t.deps.sql.unsafe(`
      create or replace function refuse_excerpt() returns trigger language plpgsql as $$
      begin
        if new.response_excerpt = 'REFUSE-ME' then raise exception 'refused'; end if;
        return new;
      end $$;
      create trigger refuse_excerpt before update on webhook_deliveries
        for each row execute function refuse_excerpt();`);
    const before = (await metrics.webhookRecordFailures.get()).values[0]?.value ?? 0;
    const outcomes: string[] = [];
    for (let n = 0; n < 4; n++) await emit(agentId, n);
    await drainWebhook(t.deps, agentId, 1000, (outcome) => outcomes.push(outcome.status));
    expect(outcomes).toEqual(["internal_error", "succeeded", "succeeded", "succeeded"]);
    expect(hook.ids()).toEqual(await eventIds(agentId));
    expect((await metrics.webhookRecordFailures.get()).values[0]?.value).toBe(before + 1);
    const [first] = await eventIds(agentId);
    // Delivered (the receiver said 2xx), without anything of the answer.
    expect(await getWebhookDeliveryDetail(t.deps, agentId, first as string)).toMatchObject({
      status: "succeeded",
      attempts: 1,
      error: "internal error: the attempt could not be recorded",
      response: { httpStatus: 200, excerpt: null },
    });
    await t.deps.sql.unsafe("drop trigger refuse_excerpt on webhook_deliveries");
  });

  it("keeps at most 1 KB of an answer, without control characters or lone surrogates", () => {
    expect(answerExcerpt(Buffer.from("a\u0000b\tc\r\nd\u007f"))).toBe("ab\tc\r\nd");
    expect(answerExcerpt(Buffer.from("x".repeat(5000)))).toHaveLength(1024);
    // A cut multi-byte character is replaced, never stored half.
    expect(answerExcerpt(Buffer.from(`${"x".repeat(1023)}é`))).toBe(`${"x".repeat(1023)}\ufffd`);
  });
});

describe("resend one event", () => {
  it("sends a delivered event again as a new attempt of the same id, signed the same way", async () => {
    const agentId = await newAgent();
    const hook = await rawReceiver(() => ({ status: 200, body: "" }));
    const { secret } = await putWebhook(t.deps, agentId, hook.url);
    await emit(agentId, 1);
    await emit(agentId, 2);
    await drainWebhook(t.deps, agentId);
    const [first] = await eventIds(agentId);
    expect(await redeliverWebhookEvent(t.deps, agentId, first as string)).toEqual({
      status: "pending",
      attempt: 2,
    });
    await drainWebhook(t.deps, agentId);
    expect(hook.received).toHaveLength(3);
    const again = hook.received[2] as Received;
    expect(again.headers["x-svc-event-id"]).toBe(first);
    expect(again.headers["x-svc-delivery-attempt"]).toBe("2");
    expect(again.body).toBe(hook.received[0]?.body);
    expect(verifies(again.headers["x-svc-signature"] as string, again.body, secret)).toBe(true);
    expect(await getWebhookDeliveryDetail(t.deps, agentId, first as string)).toMatchObject({
      status: "succeeded",
      attempts: 2,
    });
    // The log filtered by event id and by status.
    expect(
      (await listWebhookDeliveries(t.deps, agentId, 50, { eventId: first })).map((d) => d.eventId),
    ).toEqual([first]);
    expect(await listWebhookDeliveries(t.deps, agentId, 50, { status: "dead" })).toEqual([]);
    expect(await listWebhookDeliveries(t.deps, agentId, 50, { status: "succeeded" })).toHaveLength(
      2,
    );
    await expect(redeliverWebhookEvent(t.deps, agentId, "evt_nope")).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("warn before disabling", () => {
  it("emails the owner once at half of WEBHOOK_DISABLE_AFTER failures and once when disabled; the banner lists it", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Flaky" });
    const hook = await rawReceiver(() => ({ status: 503, body: "" }));
    await putWebhook(t.deps, agent.id, hook.url);
    for (let n = 0; n < 4; n++) await emit(agent.id, n);
    const ids = await deliveryIds(agent.id);
    const inbox = async () =>
      (await listPersonEmailThreads(t.deps, owner.id)).threads.map((thread) => thread.subject);

    // WEBHOOK_DISABLE_AFTER is 4 here: the owner is warned at 2 failures in a row.
    await deliverWebhook(t.deps, ids[0] as number);
    expect(await inbox()).toEqual([]);
    expect(await listWebhookAlerts(t.deps, owner.id)).toEqual([]);
    await deliverWebhook(t.deps, ids[1] as number);
    expect(await inbox()).toEqual(["Your agent's webhook is failing: Flaky"]);
    expect(await listWebhookAlerts(t.deps, owner.id)).toEqual([
      {
        agentId: agent.id,
        displayName: "Flaky",
        state: "active",
        consecutiveFailures: 2,
        disableAfter: 4,
      },
    ]);
    await deliverWebhook(t.deps, ids[2] as number);
    expect(await inbox()).toHaveLength(1);
    t.clock.advance(1000);
    await deliverWebhook(t.deps, ids[3] as number);
    expect(await getWebhook(t.deps, agent.id)).toMatchObject({ state: "disabled" });
    const { threads } = await listPersonEmailThreads(t.deps, owner.id);
    expect(threads.map((thread) => thread.subject)).toEqual([
      "Your agent's webhook was turned off: Flaky",
      "Your agent's webhook is failing: Flaky",
    ]);
    const [off, failing] = threads;
    expect(off?.participants.map((user) => user.id)).toEqual([PLATFORM_USER.id]);
    expect(off?.unreadCount).toBe(1);
    expect(failing?.lastMessage?.content).toContain(`/agents/${agent.id}/webhook`);
    expect(failing?.lastMessage?.content).toContain("503 Service Unavailable");
    expect(await listWebhookAlerts(t.deps, owner.id)).toMatchObject([{ state: "disabled" }]);

    // Nothing more while it stays off; a new run of failures after resuming warns again (at
    // its 2nd failure) and turns it off again (at its 4th), whatever the number of events.
    await emit(agent.id, 5);
    await drainWebhook(t.deps, agent.id);
    expect(await inbox()).toHaveLength(2);
    await resumeWebhook(t.deps, agent.id);
    await drainWebhook(t.deps, agent.id);
    expect(hook.received).toHaveLength(8);
    expect(await inbox()).toHaveLength(4);
  });
});

describe("the owner's open console", () => {
  it("is woken, naming the webhook, by every settled attempt, a held event and each state change", async () => {
    const owner = await createUser(t.deps, {});
    const { id: agentId } = await createAgent(t.deps, { ownerId: owner.id, displayName: "Seen" });
    const heard: (string | undefined)[] = [];
    const stop = await t.deps.notifier.subscribe(`user:${owner.id}`, (change) =>
      heard.push(change),
    );
    const named = `webhook:${agentId}`;
    /** Runs `action` and waits until the owner hears of the webhook. */
    const wakes = async (action: () => Promise<unknown>) => {
      heard.length = 0;
      await action();
      await expect.poll(() => heard, { timeout: 5000 }).toContain(named);
    };
    let status = 200;
    const hook = await receiver(() => ({ status }));
    const attempt = async (n: number) => {
      await emit(agentId, n);
      return deliverWebhook(t.deps, (await deliveryIds(agentId)).at(-1) as number);
    };
    try {
      await wakes(() => putWebhook(t.deps, agentId, hook.url));
      await wakes(() => attempt(1)); // a success, settled in its one statement
      status = 500;
      await wakes(() => attempt(2)); // a failure, to be retried
      status = 410;
      await wakes(() => attempt(3)); // gone: the webhook is turned off (and the owner emailed)
      expect(heard.some((change) => change?.startsWith("thread:"))).toBe(true);
      await wakes(() => emit(agentId, 4)); // held while off: "waiting" grew
      await wakes(() => resumeWebhook(t.deps, agentId));
      await wakes(() => deleteWebhook(t.deps, agentId));
      expect(heard.every((change) => change !== undefined)).toBe(true);
    } finally {
      stop();
    }
  });
});
