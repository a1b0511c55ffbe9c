import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact, removeContact } from "../contacts/contacts";
import { userTopic, wakeAfterCommit } from "../events/notifier";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { listPersonMessages } from "../messaging/list-person-messages";
import { createTestDeps } from "../testing";
import { decideAction, expireAction } from "./decide-action";
import {
  changedFields,
  findRecordCards,
  listAgentDecisions,
  listPersonDecisions,
} from "./decisions";
import { setAutoExecute } from "./list-actions";
import { proposeAction } from "./propose-action";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const SCOPES = ["messages:read", "messages:write", "tasks:write", "notes:write"] as const;

async function setup() {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Dana Decider" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Audited",
    requestedScopes: [...SCOPES],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, [...SCOPES]);
  const propose = async (request: Record<string, unknown>) =>
    (
      await proposeAction(t.deps, { agentId: agent.id }, {
        to: person.num,
        title: "Please approve",
        ...request,
      } as never)
    ).action;
  const audit = async (actionId: string) =>
    (
      await t.deps.db
        .select({
          state: schema.actions.state,
          decidedBy: schema.actions.decidedBy,
          decidedVia: schema.actions.decidedVia,
          resolvedAt: schema.actions.resolvedAt,
          payload: schema.actions.payload,
          approvedPayload: schema.actions.approvedPayload,
        })
        .from(schema.actions)
        .where(eq(schema.actions.id, actionId))
    )[0];
  return { owner, person, agent, conversationId, propose, audit };
}

describe("the decision audit trail", () => {
  it("keeps who approved from the console, when, the proposed and the approved payload", async () => {
    const { person, conversationId, propose, audit } = await setup();
    const action = await propose({
      skill: "create_task",
      payload: { title: "Buy milk", priority: "low" },
    });
    const at = t.clock.now();
    await decideAction(t.deps, {
      userRef: person.id,
      actionId: action.id,
      approve: true,
      editedPayload: { title: "Buy oat milk", priority: "high" },
      conversationId,
      via: "console",
    });
    expect(await audit(action.id)).toEqual({
      state: "approved",
      decidedBy: person.id,
      decidedVia: "console",
      resolvedAt: at,
      payload: { title: "Buy milk", priority: "low" },
      approvedPayload: { title: "Buy oat milk", priority: "high" },
    });
    // The card in the person's chat carries the decision; the agent's AgentAction does not.
    const page = await listPersonMessages(t.deps, person.id, conversationId);
    const card = page.messages.find((m) => m.agentActionId === action.id);
    expect(card?.decision).toEqual({
      outcome: "approved",
      at: at.toISOString(),
      via: "console",
      decidedBy: person.id,
      changes: 2,
      rejection: null,
    });
    expect(Object.keys(card?.action ?? {})).not.toContain("decidedVia");
  });

  it("keeps a rejection from the CLI (no approved payload) and one by removing the agent", async () => {
    const { person, agent, propose, audit } = await setup();
    const rejected = await propose({ kind: "order.place", payload: { sku: "A1" } });
    await decideAction(t.deps, { userRef: person.id, actionId: rejected.id, approve: false });
    expect(await audit(rejected.id)).toMatchObject({
      state: "rejected",
      decidedBy: person.id,
      decidedVia: "cli",
      approvedPayload: null,
    });
    const dropped = await propose({ kind: "order.place", payload: { sku: "B2" } });
    await removeContact(t.deps, person.id, agent.id);
    expect(await audit(dropped.id)).toMatchObject({
      state: "rejected",
      decidedBy: person.id,
      decidedVia: "contact_removed",
    });
  });

  it("keeps an expiry (nobody decided) and an auto-executed create skill", async () => {
    const { person, agent, propose, audit } = await setup();
    const expiring = await propose({
      kind: "k",
      expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString(),
    });
    t.clock.advance(61_000);
    expect(await expireAction(t.deps, expiring.id)).toBe("expired");
    expect(await audit(expiring.id)).toMatchObject({
      state: "expired",
      decidedBy: null,
      decidedVia: "expiry",
      approvedPayload: null,
      resolvedAt: t.clock.now(),
    });

    await setAutoExecute(t.deps, person.id, agent.id, "create_note", true);
    const auto = await propose({ skill: "create_note", payload: { content: "Ideas" } });
    expect(auto.state).toBe("approved");
    expect(await audit(auto.id)).toMatchObject({
      state: "approved",
      decidedBy: null,
      decidedVia: "auto_execute",
      approvedPayload: { content: "Ideas" },
    });
  });

  it("counts and lists an agent's decisions for its owner, newest first, a page at a time", async () => {
    const { person, agent, propose } = await setup();
    const decide = async (request: Record<string, unknown>, approve: boolean, edit?: object) => {
      const action = await propose(request);
      t.clock.advance(1000);
      await decideAction(t.deps, {
        userRef: person.id,
        actionId: action.id,
        approve,
        editedPayload: edit,
        ...(!approve && { rejection: { reason: "Not this week", choice: "not_now" } }),
      });
      return action.id;
    };
    const plain = await decide({ kind: "a", payload: { n: 1 } }, true);
    const sameEdit = await decide({ kind: "b", payload: { n: 1 } }, true, { n: 1 });
    const edited = await decide({ kind: "c", payload: { n: 1 } }, true, { n: 2 });
    const rejected = await decide({ kind: "d" }, false);
    const first = await listAgentDecisions(t.deps, agent.id, { limit: 3 });
    expect(first.counts).toEqual({ approved: 2, edited: 1, rejected: 1, expired: 0 });
    expect(first.decisions.map((d) => [d.actionId, d.outcome, d.changes, d.rejection])).toEqual([
      // The owner reads why the person said no, to improve the agent.
      [rejected, "rejected", 0, { reason: "Not this week", choice: "not_now" }],
      [edited, "approved", 1, null],
      [sameEdit, "approved", 0, null],
    ]);
    expect(first.decisions[0]?.person).toEqual({
      id: person.id,
      num: person.num,
      displayName: "Dana Decider",
    });
    const rest = await listAgentDecisions(t.deps, agent.id, {
      limit: 3,
      before: first.next ?? undefined,
    });
    expect(rest.decisions.map((d) => d.actionId)).toEqual([plain]);
    expect(rest.next).toBeNull();
  });

  it("wakes the owner's agent page with each decision, expiry and removal, without a send", async () => {
    const { owner, person, agent, propose } = await setup();
    const pending = [
      await propose({ kind: "a" }),
      await propose({ kind: "b" }),
      await propose({
        kind: "c",
        expiresAt: new Date(t.clock.now().getTime() + 60_000).toISOString(),
      }),
      await propose({ kind: "d" }),
    ];
    const heard: (string | undefined)[] = [];
    const stop = await t.deps.notifier.subscribe(`user:${owner.id}`, (change) =>
      heard.push(change),
    );
    const activity = `activity:${agent.id}`;
    // The proposals' own wake-ups (they wait out the people's window) are heard first: a later
    // notification of this process's, heard, says every earlier one was (Postgres delivers them
    // in commit order).
    await wakeAfterCommit(t.deps.sql, []);
    await wakeAfterCommit(t.deps.sql, [userTopic(owner.id, "cards")], 0);
    await expect.poll(() => heard.includes("cards")).toBe(true);
    const hears = async (decide: () => Promise<unknown>) => {
      heard.length = 0;
      await decide();
      await expect.poll(() => heard).toEqual([activity]);
    };
    try {
      const [approved, rejected, expiring] = pending.map((action) => action.id);
      await hears(() =>
        decideAction(t.deps, { userRef: person.id, actionId: approved as string, approve: true }),
      );
      await hears(() =>
        decideAction(t.deps, { userRef: person.id, actionId: rejected as string, approve: false }),
      );
      t.clock.advance(61_000);
      await hears(() => expireAction(t.deps, expiring as string));
      await hears(() => removeContact(t.deps, person.id, agent.id));
    } finally {
      stop();
    }
  });

  it("exports only the person's own decisions, with both payloads", async () => {
    const { person, propose } = await setup();
    const other = await setup();
    const action = await propose({ kind: "trip.book", payload: { seats: 2, to: "Rome" } });
    await decideAction(t.deps, {
      userRef: person.id,
      actionId: action.id,
      approve: true,
      editedPayload: { seats: 3, to: "Rome" },
    });
    const theirs = await other.propose({ kind: "x" });
    await decideAction(t.deps, { userRef: other.person.id, actionId: theirs.id, approve: false });
    const mine = await listPersonDecisions(t.deps, person.id);
    expect(mine.decisions).toHaveLength(1);
    expect(mine.decisions[0]).toMatchObject({
      actionId: action.id,
      outcome: "approved",
      via: "cli",
      changes: 1,
      proposedPayload: { seats: 2, to: "Rome" },
      approvedPayload: { seats: 3, to: "Rome" },
    });
  });

  it("finds the card that created a record, only for the record's owner", async () => {
    const { person, conversationId, propose } = await setup();
    const action = await propose({ skill: "create_task", payload: { title: "Call mum" } });
    const approved = await decideAction(t.deps, {
      userRef: person.id,
      actionId: action.id,
      approve: true,
    });
    const recordId = approved.execution?.recordId as string;
    const cards = await findRecordCards(t.deps, person.id, [recordId, "tsk_none"]);
    expect(cards).toEqual([
      expect.objectContaining({ recordId, actionId: action.id, conversationId, auto: false }),
    ]);
    const stranger = await createUser(t.deps, {});
    expect(await findRecordCards(t.deps, stranger.id, [recordId])).toEqual([]);
  });
});

describe("changedFields", () => {
  it("counts fields added, removed or changed, not fields left alone", () => {
    expect(changedFields({ a: 1, b: { c: 2 } }, { a: 1, b: { c: 2 } })).toBe(0);
    expect(changedFields({ a: 1, b: 2 }, { a: 3, c: 4 })).toBe(3);
    expect(changedFields({ a: 1 }, null)).toBe(0);
  });
});
