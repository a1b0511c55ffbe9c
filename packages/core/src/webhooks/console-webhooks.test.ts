import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentScope } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact, setGrant } from "../contacts/contacts";
import { sendPersonEmail } from "../email/send-person-email";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { sendPersonMessage } from "../messaging/send-person-message";
import { createTestDeps, taggedEvent } from "../testing";
import { deliverWebhook } from "./deliver-webhook";
import { getWebhookDeliveryDetail } from "./describe-delivery";
import { explainDeliveryError } from "./explain-delivery-error";
import { retryWebhookDelivery } from "./retry-delivery";
import { sendWebhookTestEvent } from "./send-test-event";
import { putWebhook, resumeWebhook } from "./webhook-config";

/** What the owner's webhook page does beyond configuration: test, retry now, read a delivery. */

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: {
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      WEBHOOK_RETRY_SCHEDULE_S: "60,300",
      WEBHOOK_DISABLE_AFTER: "10",
      WEBHOOK_TIMEOUT_MS: "2000",
    },
  });
});
afterAll(() => t.close());

/** A real local receiver: each POST is answered by `answer()` with a status and a body. */
async function receiver(answer: () => { status: number; body?: string }) {
  const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      const reply = answer();
      res.statusCode = reply.status;
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

async function hookedAgent(url: string) {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Hooked" });
  await putWebhook(t.deps, agent.id, url);
  return agent.id;
}

async function emit(agentId: string): Promise<{ eventId: string; deliveryId: number }> {
  const [event] = await t.deps.db.transaction((tx) =>
    appendEvents(tx, t.clock.now(), [taggedEvent(agentId, 1)]),
  );
  const [row] = await t.deps.db
    .select({ id: schema.webhookDeliveries.id })
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.eventId, event?.id as string));
  return { eventId: event?.id as string, deliveryId: row?.id as number };
}

describe("send test event", () => {
  it("posts a signed webhook.test event and reports the answer; nothing is logged or counted", async () => {
    const hook = await receiver(() => ({ status: 200, body: '{"ok":true}' }));
    const agentId = await hookedAgent(hook.url);
    const result = await sendWebhookTestEvent(t.deps, agentId);
    expect(result).toMatchObject({
      ok: true,
      httpStatus: 200,
      excerpt: '{"ok":true}',
      problem: null,
    });
    expect(hook.received).toHaveLength(1);
    const sent = hook.received[0];
    expect(sent?.headers["x-svc-event-type"]).toBe("webhook.test");
    expect(sent?.headers["x-svc-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(JSON.parse(sent?.body ?? "")).toMatchObject({ type: "webhook.test", seq: 0, agentId });
    expect(result.request.body).toBe(sent?.body);
    const [events] = (await t.deps.db.execute(
      sql`select count(*)::int as n from events where agent_id = ${agentId}`,
    )) as unknown as { n: number }[];
    expect(events?.n).toBe(0);
  });

  it("says in words why a test failed", async () => {
    const hook = await receiver(() => ({ status: 503, body: "down for maintenance" }));
    const agentId = await hookedAgent(hook.url);
    const result = await sendWebhookTestEvent(t.deps, agentId);
    expect(result).toMatchObject({ ok: false, httpStatus: 503, excerpt: "down for maintenance" });
    expect(result.problem).toContain("503 Service Unavailable");
  });
});

describe("delivery details and retry now", () => {
  it("keeps the latest attempt's headers, answer excerpt and time; retry now runs a waiting delivery at once", async () => {
    let status = 500;
    const hook = await receiver(() => ({ status, body: `answer ${status} `.repeat(200) }));
    const agentId = await hookedAgent(hook.url);
    const { eventId, deliveryId } = await emit(agentId);
    await deliverWebhook(t.deps, deliveryId);

    const failed = await getWebhookDeliveryDetail(t.deps, agentId, eventId);
    expect(failed).toMatchObject({ status: "pending", attempts: 1, httpStatus: 500 });
    expect(failed.request.headers).toMatchObject({
      "X-Svc-Event-Id": eventId,
      "X-Svc-Delivery-Attempt": "1",
    });
    expect(JSON.parse(failed.request.body ?? "")).toMatchObject({
      id: eventId,
      type: "contact.added",
    });
    expect(failed.response.excerpt?.startsWith("answer 500")).toBe(true);
    expect(failed.response.excerpt?.length).toBe(1024);
    expect(failed.attemptedAt).toBe(t.clock.now().toISOString());
    expect(failed.problem).toContain("500 Internal Server Error");
    const waiting = failed.nextAttemptAt as string;
    expect(Date.parse(waiting)).toBeGreaterThan(t.clock.now().getTime());

    await retryWebhookDelivery(t.deps, agentId, eventId);
    const [job] = (await t.deps.db.execute(
      sql`select run_at from graphile_worker.jobs where key = ${`webhook:${deliveryId}`}`,
    )) as unknown as { run_at: Date }[];
    expect(new Date(job?.run_at as Date).getTime()).toBeLessThanOrEqual(t.clock.now().getTime());

    status = 204;
    await deliverWebhook(t.deps, deliveryId);
    const done = await getWebhookDeliveryDetail(t.deps, agentId, eventId);
    expect(done).toMatchObject({ status: "succeeded", attempts: 2, problem: null });
    expect(done.request.headers?.["X-Svc-Delivery-Attempt"]).toBe("2");
    await expect(retryWebhookDelivery(t.deps, agentId, eventId)).rejects.toMatchObject({
      code: "conflict",
    });
  });

  it("gives a dead event one more attempt without restarting its schedule", async () => {
    let status = 500;
    const hook = await receiver(() => ({ status }));
    const agentId = await hookedAgent(hook.url);
    const { eventId, deliveryId } = await emit(agentId);
    for (let i = 0; i < 3; i++) await deliverWebhook(t.deps, deliveryId);
    expect((await getWebhookDeliveryDetail(t.deps, agentId, eventId)).status).toBe("dead");

    await retryWebhookDelivery(t.deps, agentId, eventId);
    expect(await deliverWebhook(t.deps, deliveryId)).toMatchObject({ status: "dead" });
    expect(await getWebhookDeliveryDetail(t.deps, agentId, eventId)).toMatchObject({
      status: "dead",
      attempts: 4,
      nextAttemptAt: null,
    });

    await retryWebhookDelivery(t.deps, agentId, eventId);
    status = 200;
    expect(await deliverWebhook(t.deps, deliveryId)).toMatchObject({ status: "succeeded" });
  });

  it("refuses while the webhook is off, and for another agent's event", async () => {
    const hook = await receiver(() => ({ status: 410 }));
    const agentId = await hookedAgent(hook.url);
    const { eventId, deliveryId } = await emit(agentId);
    await deliverWebhook(t.deps, deliveryId);
    await expect(retryWebhookDelivery(t.deps, agentId, eventId)).rejects.toMatchObject({
      code: "conflict",
    });
    await resumeWebhook(t.deps, agentId);
    const other = await hookedAgent(hook.url);
    await expect(retryWebhookDelivery(t.deps, other, eventId)).rejects.toMatchObject({
      code: "conflict",
    });
    await expect(getWebhookDeliveryDetail(t.deps, other, eventId)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("owners see what the agent may see now", () => {
  /** A person in contact with a hooked agent, granting `grant`; every delivery succeeds. */
  async function withheldFrom(grant: AgentScope[]) {
    const hook = await receiver(() => ({ status: 200 }));
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Hooked",
      requestedScopes: ["messages:read", "messages:write", "emails:read", "emails:write"],
    });
    await putWebhook(t.deps, agent.id, hook.url);
    const person = await createUser(t.deps, { displayName: "Pat" });
    await addContact(t.deps, person.id, agent.id, grant);
    return { agent, person, hook };
  }

  /** The detail of every delivery of the agent, as the owner's console reads it, delivered first. */
  async function ownerViews(agentId: string): Promise<string> {
    const rows = await t.deps.db
      .select()
      .from(schema.webhookDeliveries)
      .where(eq(schema.webhookDeliveries.agentId, agentId));
    const details = [];
    for (const row of rows) {
      await deliverWebhook(t.deps, row.id);
      details.push(await getWebhookDeliveryDetail(t.deps, agentId, row.eventId));
    }
    expect(details.length).toBeGreaterThan(0);
    return JSON.stringify(details);
  }

  it("a message from a person who granted only messages:write is masked in the delivery detail", async () => {
    const { agent, person, hook } = await withheldFrom(["messages:write"]);
    await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "SECRET-NOGRANT-12345",
    });
    const seen = await ownerViews(agent.id);
    expect(seen).not.toContain("SECRET-NOGRANT");
    const bodies = (JSON.parse(seen) as { request: { body: string } }[]).map((d) =>
      JSON.parse(d.request.body),
    );
    expect(bodies.find((b) => b.type === "message.received")).toMatchObject({
      type: "message.received",
      payload: { message: null, accessDenied: { scope: "messages:read" } },
    });
    // The owner reads what went over the wire.
    expect(hook.received.map((r) => r.body).join()).not.toContain("SECRET-NOGRANT");
  });

  it("a message sent before messages:read was revoked is masked once it is revoked", async () => {
    const { agent, person } = await withheldFrom(["messages:read", "messages:write"]);
    await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "text",
      content: "SECRET-BEFORE",
    });
    expect(await ownerViews(agent.id)).toContain("SECRET-BEFORE");
    await setGrant(t.deps, person.id, agent.id, ["messages:write"]);
    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "SECRET-AFTER" });
    const seen = await ownerViews(agent.id);
    expect(seen).not.toContain("SECRET-BEFORE");
    expect(seen).not.toContain("SECRET-AFTER");
  });

  it("an email's subject and body are masked without emails:read", async () => {
    const { agent, person } = await withheldFrom(["messages:write"]);
    await sendPersonEmail(t.deps, person.id, {
      to: [agent.num],
      subject: "SECRET-SUBJECT",
      content: "SECRET-BODY",
    });
    const seen = await ownerViews(agent.id);
    expect(seen).toContain("email.received");
    expect(seen).not.toContain("SECRET-SUBJECT");
    expect(seen).not.toContain("SECRET-BODY");
  });
});

describe("explainDeliveryError", () => {
  it("turns network errors and answers into what to check", () => {
    expect(explainDeliveryError("getaddrinfo ENOTFOUND hooks.exmaple.com", null)).toBe(
      "The host name hooks.exmaple.com could not be found. Check the URL for typos, and that its DNS record exists.",
    );
    expect(explainDeliveryError("connect ECONNREFUSED 127.0.0.1:9", null)).toContain(
      "nothing is listening",
    );
    expect(explainDeliveryError("no answer within 10000 ms", null)).toContain("within 10 seconds");
    expect(explainDeliveryError("answered 301", 301)).toContain("Redirects are never followed");
    expect(explainDeliveryError("answered 410 (gone)", 410)).toContain("turned off");
    expect(explainDeliveryError("webhook disabled", null)).toContain("Resume it");
    // A refused address is explained without saying where the name resolves.
    expect(explainDeliveryError("the URL is not allowed", null)).toBe(
      "The URL is not allowed. Webhooks go only to hosts on the public internet.",
    );
    expect(explainDeliveryError("answered 502", null)).toContain("502 Bad Gateway");
    expect(explainDeliveryError(null, 200)).toBeNull();
  });
});
