import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { decideAction } from "../actions/decide-action";
import { proposeAction } from "../actions/propose-action";
import { cleanupExpired } from "../maintenance/cleanup";
import { codeOf, createTestDeps, testChat } from "../testing";
import { updateNotificationSettings } from "./notification-settings";
import {
  addPushSubscription,
  listPushDevices,
  MAX_PUSH_DEVICES,
  removePushSubscription,
} from "./push-subscriptions";
import {
  isLooking,
  MESSAGE_PUSH_WINDOW_MS,
  notifyMessage,
  notifyOwner,
  notifyPerson,
  PRESENCE_LEASE_MS,
  reportPresence,
  retryPush,
} from "./send-push";
import { browserKeys, decryptPush, vapidClaims } from "./test-push";

/** A browser's subscription keys: a P-256 pair and a 16-byte auth secret. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const vapid = webpush.generateVAPIDKeys();
let t: Awaited<ReturnType<typeof createTestDeps>>;
let origin: string;
const received: Received[] = [];
/** What the push service answers next (then 201). */
const answers: { status: number; headers?: Record<string, string> }[] = [];

beforeAll(async () => {
  t = await createTestDeps({
    env: {
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: "mailto:ops@example.com",
      PUSH_RETRY_SCHEDULE_S: "2,4",
    },
  });
  t.clock.set(new Date());
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers.shift() ?? { status: 201 };
      res.writeHead(answer.status, answer.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  };
});

async function pushJobs(task: string) {
  const rows = await t.deps.sql<
    { payload: Record<string, unknown>; run_at: string; key: string | null }[]
  >`
    select j.payload, j.run_at, j.key from graphile_worker._private_jobs j
    join graphile_worker._private_tasks k on k.id = j.task_id
    where k.identifier = ${task} order by j.id`;
  return rows.map((row) => ({ ...row, run_at: new Date(row.run_at) }));
}

async function clearJobs() {
  await t.deps.sql`delete from graphile_worker._private_jobs`;
}

describe("subscriptions", () => {
  it("take a browser's PushSubscription JSON, refuse malformed ones and private addresses", async () => {
    const { person } = await testChat(t.deps);
    const browser = browserKeys();
    const device = await addPushSubscription(
      t.deps,
      person.id,
      { endpoint: `${origin}/push/a`, expirationTime: null, keys: browser.keys },
      "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36",
    );
    expect(device).toMatchObject({ endpoint: `${origin}/push/a`, label: "Chrome on Android" });
    const add = (sub: unknown) => codeOf(addPushSubscription(t.deps, person.id, sub));
    expect(await add({ endpoint: "not a url", keys: browser.keys })).toBe("validation_error");
    expect(
      await add({ endpoint: `${origin}/x`, keys: { p256dh: "abc", auth: browser.keys.auth } }),
    ).toBe("validation_error");
    expect(await add({ endpoint: `${origin}/x`, keys: { p256dh: browser.keys.p256dh } })).toBe(
      "validation_error",
    );
    expect(await add({ endpoint: "http://push.example.com/x", keys: browser.keys })).toBe(
      "validation_error",
    );
    expect(await add({ endpoint: "https://10.0.0.1/x", keys: browser.keys })).toBe(
      "validation_error",
    );
    expect(await add({ endpoint: "https://localhost/x", keys: browser.keys })).toBe(
      "validation_error",
    );
  });

  it("allow at most 10 devices per person; the same endpoint again replaces its row", async () => {
    const { person } = await testChat(t.deps);
    const { keys } = browserKeys();
    for (let i = 0; i < MAX_PUSH_DEVICES; i++)
      await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/n${i}`, keys });
    await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/n0`, keys });
    expect(
      await codeOf(
        addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/n10`, keys }),
      ),
    ).toBe("conflict");
    expect(await listPushDevices(t.deps, person.id)).toHaveLength(MAX_PUSH_DEVICES);
    expect(await removePushSubscription(t.deps, person.id, { endpoint: `${origin}/push/n3` })).toBe(
      true,
    );
    expect(await removePushSubscription(t.deps, person.id, { endpoint: `${origin}/push/n3` })).toBe(
      false,
    );
    expect(await listPushDevices(t.deps, person.id)).toHaveLength(MAX_PUSH_DEVICES - 1);
  });
});

describe("a card reaches the person's device", () => {
  it("encrypted, VAPID-signed, in words; the decision sends the closing push", async () => {
    await clearJobs();
    const { person, agent, conversationId } = await testChat(t.deps);
    const browser = browserKeys();
    await addPushSubscription(t.deps, person.id, {
      endpoint: `${origin}/push/card`,
      keys: browser.keys,
    });
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Call the plumber",
      kind: "call.plumber",
      expiresAt: new Date(t.clock.now().getTime() + 2 * 3600_000).toISOString(),
    } as never);
    const jobs = await pushJobs("push_notify");
    expect(jobs.map((job) => job.payload)).toEqual([
      { userId: person.id, notice: "card", actionId: action.id },
      { userId: person.id, notice: "reminder", actionId: action.id },
    ]);
    expect(jobs[1]?.run_at).toEqual(new Date(new Date(action.expiresAt).getTime() - 3600_000));

    received.length = 0;
    expect(await notifyPerson(t.deps, jobs[0]?.payload as never)).toEqual({ sent: 1 });
    const [push] = received;
    if (!push) throw new Error("nothing arrived");
    expect(push.path).toBe("/push/card");
    expect(push.headers).toMatchObject({ "content-encoding": "aes128gcm", urgency: "high" });
    expect(Number(push.headers.ttl)).toBeGreaterThan(7000);
    expect(Number(push.headers.ttl)).toBeLessThanOrEqual(7200);
    expect(push.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    expect(push.body.length).toBeLessThanOrEqual(3 * 1024);
    const claims = vapidClaims(push.headers, vapid.publicKey);
    expect(claims.aud).toBe(origin);
    expect(claims.sub).toBe("mailto:ops@example.com");
    expect(claims.exp * 1000 - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    expect(decryptPush(push.body, browser)).toEqual({
      type: "card",
      id: action.id,
      title: "Helper",
      body: "Helper wants to do this (call plumber): Call the plumber",
      url: `/chats/${conversationId}#card-${action.id}`,
      actions: [
        { action: "approve", title: "Approve" },
        { action: "reject", title: "Reject" },
      ],
      tag: `card:${action.id}`,
    });
    expect((await listPushDevices(t.deps, person.id))[0]?.lastDeliveredAt).not.toBeNull();

    await clearJobs();
    await decideAction(t.deps, { userRef: person.id, actionId: action.id, approve: true });
    const closing = await pushJobs("push_notify");
    expect(closing.map((job) => job.payload)).toEqual([
      { userId: person.id, notice: "close", actionId: action.id },
    ]);
    received.length = 0;
    await notifyPerson(t.deps, closing[0]?.payload as never);
    expect(decryptPush(received[0]?.body ?? Buffer.alloc(0), browser)).toMatchObject({
      type: "close",
      tag: `card:${action.id}`,
    });
    // The reminder of a decided card is gone with the decision.
    expect(await notifyPerson(t.deps, jobs[1]?.payload as never)).toEqual({ sent: 0 });
  });

  it("a push service that is down delays the push, honouring Retry-After, and loses nothing", async () => {
    await clearJobs();
    const { person, agent, conversationId } = await testChat(t.deps);
    const browser = browserKeys();
    await addPushSubscription(t.deps, person.id, {
      endpoint: `${origin}/push/down`,
      keys: browser.keys,
    });
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Water the plants",
      kind: "plants.water",
    } as never);
    answers.push({ status: 503 }, { status: 429, headers: { "Retry-After": "60" } });
    const started = t.clock.now().getTime();
    received.length = 0;
    expect(
      await notifyPerson(t.deps, { userId: person.id, notice: "card", actionId: action.id }),
    ).toEqual({ sent: 0 });
    let [retry] = await pushJobs("push_send");
    expect(retry?.run_at.getTime()).toBe(started + 2000);
    expect(await retryPush(t.deps, retry?.payload as never)).toBe("retry");
    [, retry] = await pushJobs("push_send");
    expect(retry?.run_at.getTime()).toBe(started + 60_000);
    expect(await retryPush(t.deps, retry?.payload as never)).toBe("sent");
    expect(received).toHaveLength(3);
    expect(decryptPush(received[2]?.body ?? Buffer.alloc(0), browser)).toMatchObject({
      type: "card",
      id: action.id,
    });
  });

  it("a push service's 404 or 410 removes the subscription", async () => {
    const { person, agent, conversationId } = await testChat(t.deps);
    const { keys } = browserKeys();
    await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/gone1`, keys });
    await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/gone2`, keys });
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Gone",
      kind: "x.y",
    } as never);
    answers.push({ status: 410 }, { status: 404 });
    await notifyPerson(t.deps, { userId: person.id, notice: "card", actionId: action.id });
    expect(await listPushDevices(t.deps, person.id)).toEqual([]);
  });

  it("follows the person's settings: no text, no new cards, quiet hours that hold cards", async () => {
    const { person, agent, conversationId } = await testChat(t.deps);
    const browser = browserKeys();
    await addPushSubscription(t.deps, person.id, {
      endpoint: `${origin}/push/settings`,
      keys: browser.keys,
    });
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Private thing",
      kind: "x.y",
    } as never);
    const job = { userId: person.id, notice: "card" as const, actionId: action.id };
    await updateNotificationSettings(t.deps, person.id, { showText: false });
    received.length = 0;
    await notifyPerson(t.deps, job);
    expect(decryptPush(received[0]?.body ?? Buffer.alloc(0), browser)).toMatchObject({
      body: "Helper asks for your decision",
    });
    await updateNotificationSettings(t.deps, person.id, { newCard: false });
    expect(await notifyPerson(t.deps, job)).toEqual({ sent: 0 });
    const hour = t.clock.now().getUTCHours();
    const pad = (h: number) => `${String(h % 24).padStart(2, "0")}:00`;
    await updateNotificationSettings(t.deps, person.id, {
      newCard: true,
      quietFrom: pad(hour),
      quietTo: pad(hour + 2),
      quietHoldsCards: true,
    });
    const held = await notifyPerson(t.deps, job);
    expect(held.sent).toBe(0);
    expect(held.heldUntil?.getUTCHours()).toBe((hour + 2) % 24);
  });

  it("tells an agent's owner that its webhook was turned off, unless they said no", async () => {
    const { owner, agent } = await testChat(t.deps);
    const browser = browserKeys();
    await addPushSubscription(t.deps, owner.id, {
      endpoint: `${origin}/push/owner`,
      keys: browser.keys,
    });
    received.length = 0;
    expect(
      await notifyOwner(t.deps, { agentId: agent.id, alert: "webhook_disabled", detail: "25" }),
    ).toEqual({
      sent: 1,
    });
    expect(decryptPush(received[0]?.body ?? Buffer.alloc(0), browser)).toMatchObject({
      type: "alert",
      title: "Helper's webhook was turned off",
      url: `/agents/${agent.id}/webhook`,
      tag: `alert:webhook_disabled-${agent.id}`,
    });
    await updateNotificationSettings(t.deps, owner.id, { ownerAlerts: false });
    expect(
      await notifyOwner(t.deps, { agentId: agent.id, alert: "paused", detail: "messages" }),
    ).toEqual({
      sent: 0,
    });
  });
});

describe("no device, no job", () => {
  it("a card, its reminder and its closing enqueue nothing for a person with no device", async () => {
    await clearJobs();
    const { person, agent, conversationId } = await testChat(t.deps);
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Nobody's phone",
      kind: "x.y",
      expiresAt: new Date(t.clock.now().getTime() + 2 * 3600_000).toISOString(),
    } as never);
    await decideAction(t.deps, { userRef: person.id, actionId: action.id, approve: false });
    await conversationSend(conversationId, agent.id, "hello");
    expect(await pushJobs("push_notify")).toEqual([]);
    expect(await pushJobs("push_message")).toEqual([]);
  });
});

async function conversationSend(conversationId: string, agentId: string, content: string) {
  const { sendAgentMessage } = await import("../messaging/send-agent-message");
  return sendAgentMessage(t.deps, { agentId }, { conversationId, type: "text", content });
}

describe("console tabs looked at (leases)", () => {
  it("a visible tab holds a lease until it is hidden or expires; each tab its own", async () => {
    const { person } = await testChat(t.deps);
    expect(await isLooking(t.deps, person.id)).toBe(false);
    await reportPresence(t.deps, person.id, "tab-one-1", true);
    await reportPresence(t.deps, person.id, "tab-two-2", true);
    expect(await isLooking(t.deps, person.id)).toBe(true);
    await reportPresence(t.deps, person.id, "tab-one-1", false);
    expect(await isLooking(t.deps, person.id)).toBe(true);
    await reportPresence(t.deps, person.id, "tab-two-2", false);
    expect(await isLooking(t.deps, person.id)).toBe(false);

    await reportPresence(t.deps, person.id, "tab-one-1", true);
    t.clock.advance(PRESENCE_LEASE_MS - 1000);
    expect(await isLooking(t.deps, person.id)).toBe(true);
    await reportPresence(t.deps, person.id, "tab-one-1", true); // renewed
    t.clock.advance(PRESENCE_LEASE_MS - 1000);
    expect(await isLooking(t.deps, person.id)).toBe(true);
    t.clock.advance(2000); // a tab that closed without a word
    expect(await isLooking(t.deps, person.id)).toBe(false);
    // The maintenance sweep removes the expired lease's row.
    const rows = async () =>
      (
        await t.deps.sql<{ n: number }[]>`
          select count(*)::int as n from console_presence where user_id = ${person.id}`
      )[0]?.n;
    expect(await rows()).toBe(1);
    expect((await cleanupExpired(t.deps)).consolePresence).toBeGreaterThanOrEqual(1);
    expect(await rows()).toBe(0);
  });

  it("holds at most 20 leases per person (made-up tab ids get no more rows)", async () => {
    const { person } = await testChat(t.deps);
    for (let i = 0; i < 25; i++) await reportPresence(t.deps, person.id, `tab-many-${i}`, true);
    const [row] = await t.deps.sql<{ n: number }[]>`
      select count(*)::int as n from console_presence where user_id = ${person.id}`;
    expect(row?.n).toBe(20);
  });
});

describe("a message from an agent", () => {
  it("is pushed while no tab is looked at, in words per the privacy setting; rapid ones make one push", async () => {
    await clearJobs();
    const { person, agent, conversationId } = await testChat(t.deps);
    const browser = browserKeys();
    await addPushSubscription(t.deps, person.id, {
      endpoint: `${origin}/push/message`,
      keys: browser.keys,
    });
    const first = await conversationSend(conversationId, agent.id, "The plumber is booked");
    const second = await conversationSend(conversationId, agent.id, "Monday at nine");
    const jobs = await pushJobs("push_message");
    // One job per chat per window: the latest message, at the first one's time.
    expect(jobs.map((job) => job.payload)).toEqual([
      { userId: person.id, conversationId, messageId: second.message.id },
    ]);
    expect(jobs[0]?.run_at.getTime()).toBe(t.clock.now().getTime() + MESSAGE_PUSH_WINDOW_MS);
    expect(first.message.id).not.toBe(second.message.id);

    received.length = 0;
    expect(await notifyMessage(t.deps, jobs[0]?.payload as never)).toEqual({ sent: 1 });
    expect(decryptPush(received[0]?.body ?? Buffer.alloc(0), browser)).toEqual({
      type: "message",
      id: second.message.id,
      title: "Helper",
      body: "Monday at nine",
      url: `/chats/${conversationId}`,
      actions: [],
      tag: `chat:${conversationId}`,
    });

    await updateNotificationSettings(t.deps, person.id, { showText: false });
    received.length = 0;
    await notifyMessage(t.deps, jobs[0]?.payload as never);
    expect(decryptPush(received[0]?.body ?? Buffer.alloc(0), browser)).toMatchObject({
      body: "New message from Helper",
    });
  });

  it("is not pushed while a tab is looked at, nor when the person turned agent messages off", async () => {
    const { person, agent, conversationId } = await testChat(t.deps);
    const { keys } = browserKeys();
    await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/seen`, keys });
    const sent = await conversationSend(conversationId, agent.id, "Seen already");
    const job = { userId: person.id, conversationId, messageId: sent.message.id };
    await reportPresence(t.deps, person.id, "tab-looking", true);
    received.length = 0;
    expect(await notifyMessage(t.deps, job)).toEqual({ sent: 0 });
    await reportPresence(t.deps, person.id, "tab-looking", false);
    await updateNotificationSettings(t.deps, person.id, { agentMessage: false });
    expect(await notifyMessage(t.deps, job)).toEqual({ sent: 0 });
    expect(received).toEqual([]);
    await updateNotificationSettings(t.deps, person.id, { agentMessage: true });
    expect(await notifyMessage(t.deps, job)).toEqual({ sent: 1 });
  });

  it("a streamed reply, once ended, is pushed as the agent's message", async () => {
    await clearJobs();
    const { person, agent, conversationId } = await testChat(t.deps);
    const { keys } = browserKeys();
    await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/stream`, keys });
    const { appendReplyDelta, endStreamedReply, startStreamedReply } = await import(
      "../messaging/streamed-replies"
    );
    const reply = await startStreamedReply(t.deps, {
      agentId: agent.id,
      connectionId: "push-stream",
      streamId: "r",
      conversationId,
    });
    await appendReplyDelta(t.deps, agent.id, reply, "Streamed words");
    expect(await pushJobs("push_message")).toEqual([]);
    const message = await endStreamedReply(t.deps, agent.id, reply);
    expect((await pushJobs("push_message")).map((job) => job.payload)).toEqual([
      { userId: person.id, conversationId, messageId: message.id },
    ]);
  });

  it("is held by quiet hours until they end", async () => {
    await clearJobs();
    const { person, agent, conversationId } = await testChat(t.deps);
    const { keys } = browserKeys();
    await addPushSubscription(t.deps, person.id, { endpoint: `${origin}/push/quiet`, keys });
    const sent = await conversationSend(conversationId, agent.id, "Late news");
    const hour = t.clock.now().getUTCHours();
    const pad = (h: number) => `${String(h % 24).padStart(2, "0")}:00`;
    await updateNotificationSettings(t.deps, person.id, {
      quietFrom: pad(hour),
      quietTo: pad(hour + 1),
    });
    await clearJobs();
    const held = await notifyMessage(t.deps, {
      userId: person.id,
      conversationId,
      messageId: sent.message.id,
    });
    expect(held.sent).toBe(0);
    expect(held.heldUntil?.getUTCHours()).toBe((hour + 1) % 24);
    expect((await pushJobs("push_message"))[0]?.run_at).toEqual(held.heldUntil);
  });
});
