import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { deliveryIdsOf, newHookedAgent, type Received, receiver, verifies } from "./test-receiver";
import {
  countWaitingDeliveries,
  deleteWebhook,
  getWebhook,
  putWebhook,
  resumeWebhook,
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

/** Agents whose drains were woken (decision 0055), in the order this process heard them. */
const woken: string[] = [];
beforeAll(async () => {
  await t.deps.notifier.subscribe("webhook-drains", (agentId) => {
    if (agentId) woken.push(agentId);
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
