import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact, removeContact } from "../contacts/contacts";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { createRecord, listOwnRecords } from "../records/person-records";
import { codeOf, createTestDeps } from "../testing";
import { decideAction, expireAction } from "./decide-action";
import { getAgentAction, listAgentActions, setAutoExecute } from "./list-actions";
import { proposeAction } from "./propose-action";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { LIMIT_PENDING_PROPOSALS: "2" } });
});
afterAll(() => t.close());

async function setup(grant = ["messages:read", "messages:write", "tasks:write", "notes:write"]) {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Proposer",
    requestedScopes: ["messages:read", "messages:write", "tasks:write", "notes:write"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, grant);
  const propose = (request: Record<string, unknown>) =>
    proposeAction(t.deps, { agentId: agent.id }, {
      to: person.num,
      title: "Do it",
      ...request,
    } as never);
  const events = async () =>
    (await readEvents(t.deps, agent.id, 0, 100)).events.filter((e) => e.type.startsWith("action."));
  return { owner, person, agent, conversationId, propose, events };
}

describe("proposing", () => {
  it("delivers a pending proposal as a card message and lists it", async () => {
    const { propose, agent, person, conversationId } = await setup();
    const { action, message } = await propose({
      kind: "book.table",
      payload: { seats: 2 },
      description: "Friday",
    });
    expect(action).toMatchObject({
      kind: "book.table",
      state: "pending",
      userId: person.id,
      conversationId,
      payload: { seats: 2 },
      skill: null,
      execution: null,
      editedPayload: null,
    });
    expect(new Date(action.expiresAt).getTime() - t.clock.now().getTime()).toBe(24 * 3600_000);
    expect(message).toMatchObject({
      agentActionId: action.id,
      content: "Do it",
      senderId: agent.id,
    });
    expect(
      (await listAgentActions(t.deps, agent.id, { limit: 50, state: "pending" })).map((a) => a.id),
    ).toEqual([action.id]);
    expect((await getAgentAction(t.deps, agent.id, action.id)).id).toBe(action.id);
  });

  it("refuses bad expiry, bad skill payloads, missing skill scopes and too many pending", async () => {
    const { propose, agent } = await setup(["messages:read", "messages:write"]);
    const at = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
    expect(await codeOf(propose({ kind: "k", expiresAt: at(59_000) }))).toBe("invalid_expiry");
    expect(await codeOf(propose({ kind: "k", expiresAt: at(7 * 24 * 3600_000 + 1000) }))).toBe(
      "invalid_expiry",
    );
    expect(
      await codeOf(propose({ skill: "create_task", payload: { title: "x", colour: "red" } })),
    ).toBe("invalid_payload");
    expect(await codeOf(propose({ skill: "create_task", payload: {} }))).toBe("invalid_payload");
    expect(await codeOf(propose({ skill: "create_task", payload: { title: "x" } }))).toBe(
      "scope_not_granted",
    );
    // A missing skill scope is a refused send, counted toward the daily ceiling.
    expect((await getAgentUsage(t.deps, agent.id)).usage.refused).toBe(1);
    expect(await codeOf(propose({ kind: "a", expiresAt: at(60_000) }))).toBe("ok");
    expect(await codeOf(propose({ kind: "b" }))).toBe("ok");
    expect(await codeOf(propose({ kind: "c" }))).toBe("too_many_pending");
  });

  it("holds the pending limit under concurrent proposals", async () => {
    const { propose, agent, conversationId } = await setup();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => codeOf(propose({ kind: `race.${i}` }))),
    );
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(2);
    expect(outcomes.filter((o) => o === "too_many_pending")).toHaveLength(6);
    const pending = await listAgentActions(t.deps, agent.id, { limit: 50, state: "pending" });
    expect(pending.filter((a) => a.conversationId === conversationId)).toHaveLength(2);
  });
});

describe("deciding", () => {
  it("approves (with an edited payload) or rejects once, only by the approver in that conversation", async () => {
    const { propose, person, events } = await setup();
    const stranger = await createUser(t.deps, {});
    const { action } = await propose({ kind: "pay.invoice", payload: { amount: 10 } });
    expect(
      await codeOf(
        decideAction(t.deps, { userRef: stranger.id, actionId: action.id, approve: true }),
      ),
    ).toBe("not_found");
    expect(
      await codeOf(
        decideAction(t.deps, {
          userRef: person.id,
          actionId: action.id,
          approve: true,
          conversationId: "cnv_other",
        }),
      ),
    ).toBe("forbidden");
    const approved = await decideAction(t.deps, {
      userRef: person.num,
      actionId: action.id,
      approve: true,
      editedPayload: { amount: 8 },
    });
    expect(approved).toMatchObject({
      state: "approved",
      editedPayload: { amount: 8 },
      resolvedAt: expect.any(String),
    });
    expect(
      await codeOf(
        decideAction(t.deps, { userRef: person.id, actionId: action.id, approve: false }),
      ),
    ).toBe("conflict");

    const second = (await propose({ kind: "pay.invoice", payload: {} })).action;
    expect(
      (await decideAction(t.deps, { userRef: person.id, actionId: second.id, approve: false }))
        .state,
    ).toBe("rejected");
    const seen = await events();
    expect(seen.map((e) => e.type)).toEqual(["action.approved", "action.rejected"]);
    expect(seen[0]?.payload).toEqual({ conversationId: action.conversationId, action: approved });
  });

  it("gives the agent the person's why with a rejection: stored, on the event and on GET", async () => {
    const { propose, person, agent, events } = await setup();
    const { action } = await propose({ kind: "pay.invoice", payload: { amount: 10 } });
    const decide = (rejection: unknown, approve = false) =>
      codeOf(
        decideAction(t.deps, {
          userRef: person.id,
          actionId: action.id,
          approve,
          rejection: rejection as never,
        }),
      );
    // Checked before anything changes: too long, an unknown choice, a reason with an approval.
    expect(await decide({ reason: "x".repeat(501) })).toBe("validation_error");
    expect(await decide({ choice: "later" })).toBe("validation_error");
    expect(await decide({ reason: "fine" }, true)).toBe("validation_error");
    const long = await decideAction(t.deps, {
      userRef: person.id,
      actionId: action.id,
      approve: false,
      rejection: { reason: ` ${"é".repeat(500)} `, choice: "wrong_details" },
    });
    expect(long.state).toBe("rejected");
    expect(long.rejection).toEqual({ reason: "é".repeat(500), choice: "wrong_details" });
    expect((await getAgentAction(t.deps, agent.id, action.id)).rejection).toEqual(long.rejection);
    const [event] = await events();
    expect(event?.type).toBe("action.rejected");
    expect(event?.payload).toEqual({ conversationId: action.conversationId, action: long });

    // Nothing said: both fields null. A blank reason is none.
    const second = (await propose({ kind: "k" })).action;
    const plain = await decideAction(t.deps, {
      userRef: person.id,
      actionId: second.id,
      approve: false,
      rejection: { reason: "   " },
    });
    expect(plain.rejection).toEqual({ reason: null, choice: null });
    // Not on an approval.
    const third = (await propose({ kind: "k" })).action;
    expect(
      (await decideAction(t.deps, { userRef: person.id, actionId: third.id, approve: true }))
        .rejection,
    ).toBeUndefined();
  });

  it("rejects the pending proposals of an agent the person removes; none is approvable after", async () => {
    const { propose, person, agent, events } = await setup();
    const { action: decided } = await propose({ kind: "pay.invoice", payload: {} });
    await decideAction(t.deps, { userRef: person.id, actionId: decided.id, approve: false });
    const { action: pending } = await propose({ kind: "pay.invoice", payload: { amount: 3 } });
    await removeContact(t.deps, person.id, agent.id);
    expect(
      await codeOf(
        decideAction(t.deps, { userRef: person.id, actionId: pending.id, approve: true }),
      ),
    ).toBe("conflict");
    expect(await getAgentAction(t.deps, agent.id, pending.id)).toMatchObject({
      state: "rejected",
      resolvedAt: expect.any(String),
      rejection: { reason: null, choice: null },
    });
    const seen = await events();
    expect(seen.map((e) => [e.type, (e.payload as { action: { id: string } }).action.id])).toEqual([
      ["action.rejected", decided.id],
      ["action.rejected", pending.id],
    ]);
    // Its expiry timer finds it decided.
    expect(await expireAction(t.deps, pending.id)).toBe("decided");
  });

  it("expires undecided proposals at expiresAt; a late decision loses to the expiry", async () => {
    const { propose, person, events } = await setup();
    const { action } = await propose({
      kind: "k",
      expiresAt: new Date(t.clock.now().getTime() + 120_000).toISOString(),
    });
    expect(await expireAction(t.deps, action.id)).toBe("rescheduled");
    t.clock.advance(120_000);
    expect(
      await codeOf(
        decideAction(t.deps, { userRef: person.id, actionId: action.id, approve: true }),
      ),
    ).toBe("conflict");
    const expired = await getAgentAction(t.deps, (await events())[0]!.agentId, action.id);
    expect(expired.state).toBe("expired");
    expect("rejection" in expired).toBe(false);
    expect(await expireAction(t.deps, action.id)).toBe("decided");
    expect((await events()).map((e) => e.type)).toEqual(["action.expired"]);
  });
});

describe("platform skills", () => {
  it("runs an approved skill on the approver's account; a record not theirs fails and the approval stands", async () => {
    const { propose, person } = await setup();
    const { action } = await propose({ skill: "create_task", payload: { title: "Buy milk" } });
    const approved = await decideAction(t.deps, {
      userRef: person.id,
      actionId: action.id,
      approve: true,
      editedPayload: { title: "Buy oat milk", priority: "high" },
    });
    expect(approved.execution).toMatchObject({
      status: "succeeded",
      recordType: "task",
      recordId: expect.stringMatching(/^tsk_/),
      auto: false,
    });
    expect(await listOwnRecords(t.deps, person.id, "task")).toMatchObject([
      { title: "Buy oat milk", priority: "high" },
    ]);

    const elsewhere = await createRecord(t.deps, (await createUser(t.deps, {})).id, "task", {
      title: "Not yours",
    });
    const foreign = (await propose({ skill: "complete_task", payload: { id: elsewhere.id } }))
      .action;
    const done = await decideAction(t.deps, {
      userRef: person.id,
      actionId: foreign.id,
      approve: true,
    });
    expect(done).toMatchObject({
      state: "approved",
      execution: { status: "failed", error: expect.stringContaining(elsewhere.id) },
    });
    expect(
      await codeOf(
        decideAction(t.deps, {
          userRef: person.id,
          actionId: (await propose({ skill: "create_task", payload: { title: "t" } })).action.id,
          approve: true,
          editedPayload: { title: "" },
        }),
      ),
    ).toBe("invalid_payload");
  });

  it("auto-executes an enabled create skill with no card decision and no action event", async () => {
    const { propose, person, agent, events } = await setup();
    expect(await codeOf(setAutoExecute(t.deps, person.id, agent.id, "update_task", true))).toBe(
      "validation_error",
    );
    await setAutoExecute(t.deps, person.id, agent.id, "create_note", true);
    const { action } = await propose({
      skill: "create_note",
      payload: { content: "remember the keys" },
    });
    expect(action).toMatchObject({
      state: "approved",
      execution: { status: "succeeded", recordType: "note", auto: true },
    });
    expect(await events()).toEqual([]);
    expect(
      (await propose({ skill: "create_task", payload: { title: "asks first" } })).action.state,
    ).toBe("pending");
  });
});
