import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps } from "../testing";
import { type DeliveryCursor, listWebhookDeliveries, readDeliveryLog } from "./delivery-log";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

type Status = typeof schema.webhookDeliveries.$inferInsert.status;

/**
 * An agent whose log holds `count` deliveries (seq 1, 2, …): every third a `message.received`,
 * the rest `contact.added`; each in the status `statusOf(seq)` gives.
 */
async function agentWithLog(count: number, statusOf: (seq: number) => Status = () => "succeeded") {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Logged" });
  const at = (seq: number) => new Date(Date.UTC(2026, 5, 1, 0, seq));
  await t.deps.db.insert(schema.webhookDeliveries).values(
    Array.from({ length: count }, (_, i) => {
      const seq = i + 1;
      return {
        agentId: agent.id,
        eventId: `evt_log_${agent.id}_${seq}`,
        eventSeq: seq,
        eventType: seq % 3 === 0 ? "message.received" : "contact.added",
        status: statusOf(seq),
        attempts: 1,
        latencyMs: seq * 10,
        createdAt: at(seq),
        updatedAt: at(seq),
      };
    }),
  );
  return agent.id;
}

const seqs = (page: { deliveries: { eventSeq: number }[] }) =>
  page.deliveries.map((d) => d.eventSeq);

describe("the owner's delivery log, a page at a time", () => {
  it("pages older and newer by seq, and knows where each end is", async () => {
    const agentId = await agentWithLog(7);
    const page = (cursor: DeliveryCursor) => readDeliveryLog(t.deps, agentId, {}, cursor, 3);

    const first = await page({});
    expect(seqs(first)).toEqual([7, 6, 5]);
    expect(first).toMatchObject({ newer: null, older: { before: 5 } });
    expect(first.deliveries[0]).toMatchObject({
      eventType: "contact.added",
      latencyMs: 70,
      createdAt: "2026-06-01T00:07:00.000Z",
    });

    const second = await page({ before: 5 });
    expect(seqs(second)).toEqual([4, 3, 2]);
    expect(second).toMatchObject({ newer: { after: 4 }, older: { before: 2 } });

    const last = await page({ before: 2 });
    expect(seqs(last)).toEqual([1]);
    expect(last).toMatchObject({ newer: { after: 1 }, older: null });

    // Back up: the rows just above the cursor, newest first, and the way on.
    const up = await page({ after: 1 });
    expect(seqs(up)).toEqual([4, 3, 2]);
    expect(up).toMatchObject({ newer: { after: 4 }, older: { before: 2 } });
    const top = await page({ after: 4 });
    expect(seqs(top)).toEqual([7, 6, 5]);
    expect(top).toMatchObject({ newer: null, older: { before: 5 } });
  });

  it("keeps a page where it is while new events arrive, and the newest page shows them", async () => {
    const agentId = await agentWithLog(4);
    const second = await readDeliveryLog(t.deps, agentId, {}, { before: 3 }, 2);
    expect(seqs(second)).toEqual([2, 1]);
    expect(second.newer).toEqual({ after: 2 });
    const newest = await readDeliveryLog(t.deps, agentId, {}, {}, 2);
    expect(seqs(newest)).toEqual([4, 3]);
  });

  it("leads back from an empty page (a link whose rows went) on both sides", async () => {
    const agentId = await agentWithLog(3);
    expect(await readDeliveryLog(t.deps, agentId, {}, { before: 1 }, 2)).toEqual({
      deliveries: [],
      older: null,
      newer: { after: 0 },
    });
    expect(await readDeliveryLog(t.deps, agentId, {}, { after: 3 }, 2)).toEqual({
      deliveries: [],
      older: { before: 4 },
      newer: null,
    });
  });

  it("filters by status, event type and event id, paging within the filter", async () => {
    const agentId = await agentWithLog(9, (seq) => (seq % 2 === 0 ? "dead" : "succeeded"));
    const byType = await readDeliveryLog(t.deps, agentId, { eventType: "message.received" }, {}, 2);
    expect(seqs(byType)).toEqual([9, 6]);
    expect(byType.older).toEqual({ before: 6 });
    const rest = await readDeliveryLog(
      t.deps,
      agentId,
      { eventType: "message.received" },
      { before: 6 },
      2,
    );
    expect(seqs(rest)).toEqual([3]);
    expect(rest).toMatchObject({ older: null, newer: { after: 3 } });

    const dead = await readDeliveryLog(t.deps, agentId, { status: "dead" }, {}, 10);
    expect(seqs(dead)).toEqual([8, 6, 4, 2]);
    expect(dead).toMatchObject({ older: null, newer: null });
    const both = await readDeliveryLog(
      t.deps,
      agentId,
      { status: "dead", eventType: "message.received" },
      {},
      10,
    );
    expect(seqs(both)).toEqual([6]);

    const one = await listWebhookDeliveries(t.deps, agentId, 50, {
      eventId: `evt_log_${agentId}_5`,
    });
    expect(one.map((d) => d.eventSeq)).toEqual([5]);
    expect(
      await readDeliveryLog(t.deps, agentId, { eventType: "call.ended" }, {}, 10),
    ).toMatchObject({ deliveries: [], older: null, newer: null });
  });

  it("reads only the asking agent's deliveries", async () => {
    const mine = await agentWithLog(2);
    await agentWithLog(5);
    expect(seqs(await readDeliveryLog(t.deps, mine, {}, {}, 10))).toEqual([2, 1]);
  });
});
