import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import { appendEvents } from "../events/append-event";
import { listAgentOverviews } from "../identity/agent-overviews";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { createTestDeps, taggedEvent } from "../testing";
import { putWebhook } from "../webhooks/webhook-config";
import { getAgentHistory, lastUtcDays } from "./agent-history";

const { webhookDeliveries } = schema;

/** The owner's dashboards: the agents list's week per agent and the agent page's daily charts. */

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function ownerWithAgent(name = "Counter") {
  const owner = await createUser(t.deps, { displayName: "Owner" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: name,
    requestedScopes: ["messages:read", "messages:write", "tasks:write"],
  });
  return { owner, agent };
}

const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code?: string }) => error.code,
  );

describe("getAgentHistory", () => {
  it("counts each UTC day's messages both ways, and refused sends by code", async () => {
    t.clock.set("2026-03-09T23:30:00Z");
    const { agent } = await ownerWithAgent();
    const friend = await createUser(t.deps, { displayName: "Friend" });
    const stranger = await createUser(t.deps, { displayName: "Stranger" });
    await addContact(t.deps, friend.id, agent.id, ["messages:read", "messages:write"]);
    await sendPersonMessage(t.deps, friend.id, agent.id, { type: "text", content: "hi" });
    const say = (to: string, content: string) =>
      sendAgentMessage(t.deps, { agentId: agent.id }, { to, type: "text", content });
    await say(friend.num, "hello");
    expect(await refused(say(stranger.num, "?"))).toBe("not_a_contact");

    t.clock.set("2026-03-10T08:00:00Z");
    for (let i = 0; i < 2; i++) await say(friend.num, `m${i}`);
    expect(await refused(say(stranger.num, "?"))).toBe("not_a_contact");

    const history = await getAgentHistory(t.deps, agent.id, 3);
    expect(history.refusalCodes).toEqual(["not_a_contact"]);
    expect(history.days).toEqual([
      expect.objectContaining({ day: "2026-03-08", sent: 0, received: 0, refusals: {} }),
      expect.objectContaining({
        day: "2026-03-09",
        sent: 1,
        received: 1,
        refusals: { not_a_contact: 1 },
      }),
      expect.objectContaining({
        day: "2026-03-10",
        sent: 2,
        received: 0,
        refusals: { not_a_contact: 1 },
      }),
    ]);
  });

  it("sums the webhook's deliveries of each day: delivered, failing, average latency", async () => {
    t.clock.set("2026-04-02T12:00:00Z");
    const { agent } = await ownerWithAgent();
    await putWebhook(t.deps, agent.id, "https://hooks.example.com/in");
    const events = await t.deps.db.transaction((tx) =>
      appendEvents(tx, t.clock.now(), [
        taggedEvent(agent.id, 1),
        taggedEvent(agent.id, 2),
        taggedEvent(agent.id, 3),
      ]),
    );
    const set = (eventId: string, change: Partial<typeof webhookDeliveries.$inferInsert>) =>
      t.deps.db.update(webhookDeliveries).set(change).where(eq(webhookDeliveries.eventId, eventId));
    await set(events[0]?.id as string, { status: "succeeded", attempts: 1, latencyMs: 100 });
    await set(events[1]?.id as string, { status: "succeeded", attempts: 1, latencyMs: 300 });
    await set(events[2]?.id as string, { status: "pending", attempts: 2, latencyMs: 50 });

    const [today] = (await getAgentHistory(t.deps, agent.id, 1)).days;
    expect(today?.webhook).toEqual({ delivered: 2, failed: 1, avgLatencyMs: 150 });
  });

  it("lists UTC days oldest first, ending today", () => {
    expect(lastUtcDays(new Date("2026-01-01T00:10:00Z"), 3)).toEqual([
      "2025-12-30",
      "2025-12-31",
      "2026-01-01",
    ]);
  });
});

describe("listAgentOverviews", () => {
  it("gives each agent its contacts, last activity and messages on each of the last 7 days", async () => {
    t.clock.set("2026-05-20T10:00:00Z");
    const { owner, agent } = await ownerWithAgent("Busy");
    const idle = await createAgent(t.deps, { ownerId: owner.id, displayName: "Idle" });
    const a = await createUser(t.deps, {});
    const b = await createUser(t.deps, {});
    await addContact(t.deps, a.id, agent.id, ["messages:write"]);
    await addContact(t.deps, b.id, agent.id, []);
    t.clock.set("2026-05-18T09:00:00Z");
    await sendPersonMessage(t.deps, a.id, agent.id, { type: "text", content: "one" });
    t.clock.set("2026-05-20T11:00:00Z");
    await sendPersonMessage(t.deps, a.id, agent.id, { type: "text", content: "two" });
    await sendAgentMessage(
      t.deps,
      { agentId: agent.id },
      { to: a.num, type: "text", content: "back" },
    );

    const [busy, quiet] = await listAgentOverviews(t.deps, owner.id);
    expect(busy).toMatchObject({
      id: agent.id,
      contacts: 2,
      lastActivityAt: "2026-05-20T11:00:00.000Z",
    });
    expect(busy?.last7Days.map((d) => d.messages)).toEqual([0, 0, 0, 0, 1, 0, 2]);
    expect(busy?.last7Days.at(-1)?.day).toBe("2026-05-20");
    expect(quiet).toMatchObject({ id: idle.id, contacts: 0, lastActivityAt: null });
    expect(quiet?.last7Days.every((d) => d.messages === 0)).toBe(true);
    expect(await listAgentOverviews(t.deps, a.id)).toEqual([]);
  });
});
