import { schema } from "@switchboard/db";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps, groupedStatementsSoFar, taggedEvent } from "../testing";
import { type DeliveredAttempt, settleDeliveredAttempt } from "./success-settles";
import { putWebhook } from "./webhook-config";

const { webhookDeliveries, webhooks } = schema;

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
});
afterAll(() => t.close());

/** `agents` agents with a webhook and `each` pending deliveries apiece. */
async function pendingDeliveries(agents: number, each: number) {
  const owner = await createUser(t.deps, {});
  const agentIds: string[] = [];
  for (let a = 0; a < agents; a++) {
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: `Settled ${a}` });
    await putWebhook(t.deps, agent.id, "http://127.0.0.1:9/hook");
    await t.deps.db.transaction((tx) =>
      appendEvents(
        tx,
        t.clock.now(),
        Array.from({ length: each }, (_, i) => taggedEvent(agent.id, i)),
      ),
    );
    agentIds.push(agent.id);
  }
  const rows = [];
  for (const agentId of agentIds)
    rows.push(
      ...(await t.deps.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.agentId, agentId))
        .orderBy(asc(webhookDeliveries.id))),
    );
  return rows;
}

const delivered = (
  row: { id: number; agentId: string },
  i: number,
  excerpt: string | null = `ok ${i}`,
): DeliveredAttempt => ({
  deliveryId: row.id,
  agentId: row.agentId,
  attempt: 1,
  httpStatus: 200 + (i % 5),
  latencyMs: i,
  at: new Date(Date.UTC(2026, 10, 27, 12, 0, i)).toISOString(),
  requestHeaders: JSON.stringify({ "X-Svc-Delivery-Attempt": "1", n: String(i) }),
  responseExcerpt: excerpt,
  wake: [],
});

describe("settling delivered attempts", () => {
  it("records settles asked for together in one statement, and those asked meanwhile in the next", async () => {
    const rows = await pendingDeliveries(10, 3);
    const before = await groupedStatementsSoFar("settle");
    const first = rows
      .slice(0, 20)
      .map((row, i) => settleDeliveredAttempt(t.deps, delivered(row, i)));
    // Asked for in a later turn, while the first statement is in flight.
    await new Promise((resolve) => setImmediate(resolve));
    const later = rows
      .slice(20)
      .map((row, i) => settleDeliveredAttempt(t.deps, delivered(row, i + 20)));
    await Promise.all([...first, ...later]);
    expect(await groupedStatementsSoFar("settle")).toEqual({
      statements: before.statements + 2,
      items: before.items + 30,
    });

    const settled = await t.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.agentId, rows[0]?.agentId ?? ""))
      .orderBy(asc(webhookDeliveries.id));
    expect(settled.map((d) => [d.status, d.httpStatus, d.latencyMs, d.responseExcerpt])).toEqual([
      ["succeeded", 200, 0, "ok 0"],
      ["succeeded", 201, 1, "ok 1"],
      ["succeeded", 202, 2, "ok 2"],
    ]);
    expect(settled[2]?.requestHeaders).toEqual({ "X-Svc-Delivery-Attempt": "1", n: "2" });
    expect(settled[2]?.nextAttemptAt).toBeNull();
    const [hook] = await t.deps.db
      .select()
      .from(webhooks)
      .where(eq(webhooks.agentId, rows[0]?.agentId ?? ""));
    // The webhook's last success is its latest settled attempt's time.
    expect(hook?.lastSuccessAt?.toISOString()).toBe("2026-11-27T12:00:02.000Z");
    expect(hook?.consecutiveFailures).toBe(0);
  });

  it("settles the rest of a batch when the database refuses one of them", async () => {
    const rows = await pendingDeliveries(1, 4);
    const outcomes = await Promise.allSettled(
      rows.map((row, i) =>
        // Postgres refuses text holding a NUL.
        settleDeliveredAttempt(t.deps, delivered(row, i, i === 2 ? "bad\u0000excerpt" : null)),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    const statuses = await t.deps.db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.agentId, rows[0]?.agentId ?? ""))
      .orderBy(asc(webhookDeliveries.id));
    expect(statuses.map((s) => s.status)).toEqual([
      "succeeded",
      "succeeded",
      "pending",
      "succeeded",
    ]);
  });
});
