import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps, groupedStatementsSoFar, taggedEvent } from "../testing";
import { DRAIN_BATCH, dueDeliveries } from "./due-deliveries";
import { putWebhook } from "./webhook-config";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
});
afterAll(() => t.close());

/** An agent with a webhook and `n` pending deliveries; answers its id and their event seqs. */
async function agentWaiting(n: number) {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Waiting" });
  await putWebhook(t.deps, agent.id, "http://127.0.0.1:9/hook");
  const stored = await t.deps.db.transaction((tx) =>
    appendEvents(
      tx,
      t.clock.now(),
      Array.from({ length: n }, (_, i) => taggedEvent(agent.id, i)),
    ),
  );
  return { agentId: agent.id, seqs: stored.map((e) => e.seq) };
}

const seqsOf = (rows: Awaited<ReturnType<typeof dueDeliveries>>) =>
  rows.map((row) => row.delivery.eventSeq);

describe("due deliveries", () => {
  it("reads agents asked for together in one statement, each its first batch in seq order", async () => {
    const busy = await agentWaiting(DRAIN_BATCH + 10);
    const few = await agentWaiting(3);
    const none = await agentWaiting(0);
    const [skipped] = few.seqs;
    const [fewFirst] = await dueDeliveries(t.deps, few.agentId, []);
    const before = await groupedStatementsSoFar("due_read");

    const [ofBusy, ofFew, ofNone] = await Promise.all([
      dueDeliveries(t.deps, busy.agentId, []),
      // A delivery this drain could not record is left out.
      dueDeliveries(t.deps, few.agentId, [fewFirst?.delivery.id as number]),
      dueDeliveries(t.deps, none.agentId, []),
    ]);

    expect(await groupedStatementsSoFar("due_read")).toEqual({
      statements: before.statements + 1,
      items: before.items + 3,
    });
    expect(seqsOf(ofBusy ?? [])).toEqual(busy.seqs.slice(0, DRAIN_BATCH));
    expect(seqsOf(ofFew ?? [])).toEqual(few.seqs.filter((seq) => seq !== skipped));
    expect(ofNone).toEqual([]);
    // Each row carries what its attempt needs.
    expect(ofFew?.[0]?.webhook.url).toBe("http://127.0.0.1:9/hook");
    expect(ofFew?.[0]?.stored.agentId).toBe(few.agentId);
  });

  it("reads an agent asked for alone by itself", async () => {
    const lone = await agentWaiting(2);
    const before = await groupedStatementsSoFar("due_read");
    expect(seqsOf(await dueDeliveries(t.deps, lone.agentId, []))).toEqual(lone.seqs);
    expect(await groupedStatementsSoFar("due_read")).toEqual({
      statements: before.statements + 1,
      items: before.items + 1,
    });
  });
});
