import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgent } from "./identity/agents";
import { createUser } from "./identity/users";
import { instanceStatus } from "./instance-status";
import { createTestDeps, enqueueJob } from "./testing";
import { putWebhook } from "./webhooks/webhook-config";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function agentWithWebhook(
  ownerId: string,
  name: string,
  hook: Partial<typeof schema.webhooks.$inferInsert>,
) {
  const agent = await createAgent(t.deps, { ownerId, displayName: name });
  await putWebhook(t.deps, agent.id, "https://hooks.example.com/x");
  if (Object.keys(hook).length > 0)
    await t.deps.db.update(schema.webhooks).set(hook).where(eq(schema.webhooks.agentId, agent.id));
  return agent;
}

it("shows the version, readiness and queue, and only the owner's webhooks that need attention, worst first", async () => {
  const owner = await createUser(t.deps, {});
  const other = await createUser(t.deps, {});
  await agentWithWebhook(owner.id, "Healthy", {});
  const failing = await agentWithWebhook(owner.id, "Flaky", {
    consecutiveFailures: 3,
    lastFailureAt: new Date(),
    lastError: "getaddrinfo ENOTFOUND hooks.exmaple.com",
  });
  const disabled = await agentWithWebhook(owner.id, "Gone", {
    state: "disabled",
    consecutiveFailures: 20,
  });
  await agentWithWebhook(other.id, "Someone else's", { state: "disabled" });
  await enqueueJob(t.deps.db, "action_expire", { actionId: "act_waiting" });
  // A running drain whose key a newer wake-up took over (graphile marks it out of attempts):
  // it is running, not failed.
  await enqueueJob(t.deps.db, "webhook_drain", { agentId: "agt_running" }, { jobKey: "run:1" });
  await t.deps.sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'w'
    where key = 'run:1'`;
  await enqueueJob(t.deps.db, "webhook_drain", { agentId: "agt_running" }, { jobKey: "run:1" });

  const status = await instanceStatus(t.deps, owner.id);
  expect(status.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(Date.parse(status.startedAt)).toBeLessThanOrEqual(Date.now());
  expect(status.readiness).toMatchObject({ status: "ready", checks: { database: "ok" } });
  expect(status.queue.ready).toBeGreaterThanOrEqual(1);
  expect(status.queue.oldestSeconds).toBeGreaterThanOrEqual(0);
  expect(status.queue.failed).toBe(0);
  // Its worker died and the sweep unlocked it: still not a failure.
  await t.deps.sql`update graphile_worker._private_jobs set locked_at = null, locked_by = null
    where key is null and payload->>'agentId' = 'agt_running'`;
  expect((await instanceStatus(t.deps, owner.id)).queue.failed).toBe(0);
  // One that failed its every attempt is.
  await t.deps.sql`update graphile_worker._private_jobs
    set attempts = max_attempts, last_error = 'boom' where key = 'run:1'`;
  expect((await instanceStatus(t.deps, owner.id)).queue.failed).toBe(1);
  expect(status.failingWebhooks.map((hook) => [hook.agentId, hook.state])).toEqual([
    [disabled.id, "disabled"],
    [failing.id, "active"],
  ]);
  expect(status.failingWebhooks[1]).toMatchObject({
    displayName: "Flaky",
    consecutiveFailures: 3,
    problem: expect.stringContaining("hooks.exmaple.com could not be found"),
  });

  expect((await instanceStatus(t.deps, other.id)).failingWebhooks).toHaveLength(1);
});

it("counts retrying deliveries as failing and judges health by the failure rate of the latest 20", async () => {
  const owner = await createUser(t.deps, {});
  const deliveries = async (agentId: string, statuses: ("pending" | "succeeded" | "dead")[]) => {
    const now = new Date();
    await t.deps.db.insert(schema.webhookDeliveries).values(
      statuses.map((status, i) => ({
        agentId,
        eventId: `evt_${agentId}_${i}`,
        eventSeq: i + 1,
        eventType: "contact.added",
        status,
        attempts: 1,
        nextAttemptAt: status === "pending" ? new Date(now.getTime() + 60_000) : null,
        createdAt: now,
        updatedAt: now,
      })),
    );
  };
  // Three deliveries waiting for their retry, the webhook's last attempt a success.
  const retrying = await agentWithWebhook(owner.id, "Retrying", {});
  await deliveries(retrying.id, [...Array(17).fill("succeeded"), "pending", "pending", "pending"]);
  // Its latest delivery worked, but 5 of its latest 20 did not.
  const flaky = await agentWithWebhook(owner.id, "Flaky", {});
  await deliveries(flaky.id, [
    ...Array(10).fill("dead"), // older than the window: not counted
    ...Array(5).fill("dead"),
    ...Array(15).fill("succeeded"),
  ]);
  const healthy = await agentWithWebhook(owner.id, "Healthy", {});
  await deliveries(healthy.id, Array(30).fill("succeeded"));

  const { failingWebhooks } = await instanceStatus(t.deps, owner.id);
  expect(
    failingWebhooks.map((hook) => [hook.displayName, hook.failureRate, hook.retrying]),
  ).toEqual([
    ["Flaky", 0.25, 0],
    ["Retrying", 0.15, 3],
  ]);
  expect(failingWebhooks[0]).toMatchObject({ recent: 20, consecutiveFailures: 0 });
});
