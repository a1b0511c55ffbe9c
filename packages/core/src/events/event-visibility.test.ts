import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type AgentEvent, type AgentScope, exampleUser } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAutoExecute } from "../actions/list-actions";
import { blockAgent, unblockAgent } from "../consent/agent-settings";
import { addContact, removeContact, setGrant } from "../contacts/contacts";
import { createAgent } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { sendPersonMessage } from "../messaging/send-person-message";
import { setMessageTranscript } from "../messaging/set-message-transcript";
import { wavBytes } from "../objects/test-media";
import { fireRecordDue } from "../records/fire-record-due";
import { createRecord } from "../records/person-records";
import { createTestDeps } from "../testing";
import { pollEvents } from "../updates/poll-events";
import { deliverWebhook } from "../webhooks/deliver-webhook";
import { putWebhook } from "../webhooks/webhook-config";
import { appendEvents } from "./append-event";
import { wakeAfterCommit } from "./notifier";
import { latestSeq, readEvents } from "./read-events";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
});
afterAll(() => t.close());

const ALL: AgentScope[] = ["messages:read", "messages:write", "tasks:read", "tasks:write"];

async function contact(grant: AgentScope[] = ALL) {
  const owner = await createUser(t.deps, { displayName: "Owner" });
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Agent",
    requestedScopes: ALL,
  });
  await addContact(t.deps, person.id, agent.id, grant);
  return { person, agent };
}

const say = (personId: string, agentId: string, content: string) =>
  sendPersonMessage(t.deps, personId, agentId, { type: "text", content });

/** What a replay from the start shows of each message.received: its content, or null. */
async function replayed(agentId: string): Promise<(string | null)[]> {
  const { events } = await readEvents(t.deps, agentId, 0, 100);
  return events
    .filter((e) => e.type === "message.received")
    .map((e) => (e.payload.message as { content: string } | null)?.content ?? null);
}

async function taskDue(personId: string, title: string) {
  const dueDate = "2026-04-01T08:00:00.000Z";
  const task = await createRecord(t.deps, personId, "task", { title, dueDate });
  return fireRecordDue(t.deps, { type: "task", id: task.id, at: dueDate });
}

describe("consent applies when events are read", () => {
  it("a revoked messages:read masks the replay of earlier messages; a new grant shows them again", async () => {
    const { person, agent } = await contact();
    await say(person.id, agent.id, "my secret one");
    await say(person.id, agent.id, "my secret two");
    expect(await replayed(agent.id)).toEqual(["my secret one", "my secret two"]);

    await setGrant(t.deps, person.id, agent.id, ["messages:write"]);
    expect(await replayed(agent.id)).toEqual([null, null]);
    const { events } = await readEvents(t.deps, agent.id, 0, 100);
    expect(JSON.stringify(events)).not.toContain("my secret");
    expect(events.find((e) => e.type === "message.received")?.payload).toEqual({
      conversationId: expect.any(String),
      from: expect.objectContaining({ id: person.id }),
      message: null,
      accessDenied: { scope: "messages:read", message: expect.stringContaining("Pat") },
    });

    await setGrant(t.deps, person.id, agent.id, ["messages:read"]);
    expect(await replayed(agent.id)).toEqual(["my secret one", "my secret two"]);
  });

  it("removing, blocking or suspension masks the replay too", async () => {
    const { person, agent } = await contact();
    await say(person.id, agent.id, "hidden later");

    await blockAgent(t.deps, person.id, agent.id);
    expect(await replayed(agent.id)).toEqual([null]);
    await unblockAgent(t.deps, person.id, agent.id);
    expect(await replayed(agent.id)).toEqual(["hidden later"]);

    await setUserSuspended(t.deps, person.id, true);
    expect(await replayed(agent.id)).toEqual([null]);
    await setUserSuspended(t.deps, person.id, false);

    await removeContact(t.deps, person.id, agent.id);
    expect(await replayed(agent.id)).toEqual([null]);
    const { events } = await readEvents(t.deps, agent.id, 0, 100);
    expect(JSON.stringify(events)).not.toContain("hidden later");
  });

  it("message.transcript is masked by the grant at read time", async () => {
    const { person, agent } = await contact();
    const { message } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "voice",
      audioData: `data:audio/wav;base64,${wavBytes().toString("base64")}`,
      audioDuration: "1",
    });
    await setMessageTranscript(t.deps, message.id, "spoken secret");
    const transcript = async () =>
      (await readEvents(t.deps, agent.id, 0, 100)).events.find(
        (e) => e.type === "message.transcript",
      )?.payload;
    expect(await transcript()).toMatchObject({ transcript: "spoken secret" });
    await setGrant(t.deps, person.id, agent.id, []);
    expect(await transcript()).toEqual({
      conversationId: message.conversationId,
      messageId: message.id,
      from: expect.objectContaining({ id: person.id }),
      transcript: null,
      accessDenied: { scope: "messages:read", message: expect.any(String) },
    });
  });

  it("drops person-surface events without their scope; they count toward no page, and the cursor passes them", async () => {
    const { person, agent } = await contact();
    await say(person.id, agent.id, "first");
    expect(await taskDue(person.id, "Pay rent")).toBe(1);
    await say(person.id, agent.id, "second");
    const all = (await readEvents(t.deps, agent.id, 0, 100)).events;
    expect(all.map((e) => e.type)).toEqual([
      "contact.added",
      "message.received",
      "task.due",
      "message.received",
    ]);
    const [, first, due, second] = all as AgentEvent[];

    await setGrant(t.deps, person.id, agent.id, ["messages:read"]);
    const shown = await readEvents(t.deps, agent.id, 0, 100);
    expect(shown.events.map((e) => e.type)).toEqual([
      "contact.added",
      "message.received",
      "message.received",
    ]);
    expect(JSON.stringify(shown)).not.toContain("Pay rent");
    // The page after `first` holds `second` (the dropped task.due is not counted), and its
    // cursor is past the dropped event.
    const page = await readEvents(t.deps, agent.id, first?.seq ?? 0, 1);
    expect(page.events.map((e) => e.id)).toEqual([second?.id]);
    expect(page.nextSeq).toBe(second?.seq);
    expect(page.nextSeq).toBeGreaterThan(due?.seq ?? Number.POSITIVE_INFINITY);

    // A dropped event at the end: nothing to read after `second`, and the cursor stays put.
    expect(await taskDue(person.id, "Pay again")).toBe(0); // not granted: not even written
    await setGrant(t.deps, person.id, agent.id, ["messages:read", "tasks:read"]);
    expect(await taskDue(person.id, "Pay later")).toBe(1);
    const latest = await latestSeq(t.deps, agent.id);
    await setGrant(t.deps, person.id, agent.id, ["messages:read"]);
    expect(await readEvents(t.deps, agent.id, second?.seq ?? 0, 100)).toEqual({
      events: [],
      nextSeq: second?.seq,
    });
    // The cursor endpoint does not reveal that a withheld event happened.
    expect(await latestSeq(t.deps, agent.id)).toBe(second?.seq);
    expect(latest).toBeGreaterThan(second?.seq ?? 0);
  });

  it("a parked long-poll is not answered empty by an event it may not see", async () => {
    const { person, agent } = await contact(["messages:read"]);
    const after = await latestSeq(t.deps, agent.id);
    const started = Date.now();
    const polling = pollEvents(t.deps, agent.id, { afterSeq: after, limit: 100, wait: 5 });
    await new Promise((r) => setTimeout(r, 300));
    // A task.due logged for a person who does not grant tasks:read (now): it wakes the poll,
    // which reads nothing it may show and parks again.
    await t.deps.db.transaction((tx) =>
      appendEvents(tx, t.clock.now(), [
        {
          agentId: agent.id,
          personId: person.id,
          type: "task.due",
          payload: {
            user: exampleUser,
            task: {
              id: "tsk_hidden",
              title: "hidden",
              description: null,
              dueDate: null,
              status: "open",
              priority: null,
              createdAt: t.clock.now().toISOString(),
              completedAt: null,
            },
          },
        },
      ]),
    );
    await new Promise((r) => setTimeout(r, 500));
    await say(person.id, agent.id, "visible");
    const page = await polling;
    expect(page.events.map((e) => e.type)).toEqual(["message.received"]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("reads the events and everyone's standing in one query", async () => {
    const { person, agent } = await contact();
    await say(person.id, agent.id, "one");
    const other = await createUser(t.deps, { displayName: "Other" });
    await addContact(t.deps, other.id, agent.id, []);
    await say(other.id, agent.id, "two");
    await wakeAfterCommit(t.deps.sql, []); // the sends' wake-ups gone out (decision 0077)
    const options = t.deps.sql.options as unknown as { debug?: unknown };
    let queries = 0;
    options.debug = () => queries++;
    try {
      const { events } = await readEvents(t.deps, agent.id, 0, 100);
      expect(events).toHaveLength(4);
      expect(queries).toBe(1);
    } finally {
      options.debug = undefined;
    }
  });
});

describe("removing a contact", () => {
  it("removes its contact.added and the auto-execute skills; a re-add is a fresh add", async () => {
    const { person, agent } = await contact();
    await setAutoExecute(t.deps, person.id, agent.id, "create_task", true);
    await removeContact(t.deps, person.id, agent.id);
    expect((await readEvents(t.deps, agent.id, 0, 100)).events).toEqual([]);
    const [row] = await t.deps.db
      .select()
      .from(schema.agentContacts)
      .where(eq(schema.agentContacts.userId, person.id));
    expect(row).toMatchObject({ addedAt: null, grantedScopes: [], autoExecuteSkills: [] });

    await addContact(t.deps, person.id, agent.id, ["messages:write"]);
    const { events } = await readEvents(t.deps, agent.id, 0, 100);
    expect(events.map((e) => [e.type, e.type === "contact.added" && e.payload.scopes])).toEqual([
      ["contact.added", ["messages:write"]],
    ]);
  });
});

describe("webhook deliveries", () => {
  it("are built at each attempt by the grant of that moment: masked, or dropped", async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        bodies.push(body);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { person, agent } = await contact();
      await putWebhook(
        t.deps,
        agent.id,
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      );
      await say(person.id, agent.id, "webhook secret text");
      await taskDue(person.id, "Webhook task");
      await setGrant(t.deps, person.id, agent.id, ["messages:write"]);
      const deliveries = await t.deps.db
        .select()
        .from(schema.webhookDeliveries)
        .where(eq(schema.webhookDeliveries.agentId, agent.id))
        .orderBy(schema.webhookDeliveries.eventSeq);
      expect(deliveries.map((d) => d.eventType)).toEqual(["message.received", "task.due"]);
      const outcomes = [];
      for (const delivery of deliveries) outcomes.push(await deliverWebhook(t.deps, delivery.id));
      expect(outcomes.map((o) => o.status)).toEqual(["succeeded", "withheld"]);
      expect(bodies).toHaveLength(1);
      expect(JSON.parse(bodies[0] as string).payload).toMatchObject({
        message: null,
        accessDenied: { scope: "messages:read" },
      });
      expect(bodies.join()).not.toContain("secret text");
      const left = await t.deps.db
        .select()
        .from(schema.webhookDeliveries)
        .where(eq(schema.webhookDeliveries.agentId, agent.id));
      expect(left.map((d) => d.eventType)).toEqual(["message.received"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
