import { addContact, createAgent, createUser, putWebhook } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runInProcess } from "../testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** The CLI against the test database; its JSON output, or its error envelope. */
async function cli(...args: string[]): Promise<{ code: number; out: unknown }> {
  const { code, stdout, stderr } = await runInProcess(t.config.DATABASE_URL as string, args);
  return { code, out: JSON.parse(code === 0 ? stdout : stderr) };
}

it("webhook redeliver sends one event again; webhook show filters the log by event and status", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Resender" });
  await putWebhook(t.deps, agent.id, "https://hooks.example.com/in");
  await addContact(t.deps, (await createUser(t.deps, {})).id, agent.id, []);
  await t.deps.sql`update webhook_deliveries set status = 'succeeded', attempts = 1
    where agent_id = ${agent.id}`;
  const shown = await cli("webhook", "show", "--agent", agent.num, "--status", "succeeded");
  const [delivery] = (shown.out as { deliveries: { eventId: string }[] }).deliveries;
  expect(delivery?.eventId).toMatch(/^evt_/);

  expect(
    await cli("webhook", "redeliver", "--agent", agent.num, "--event", delivery?.eventId as string),
  ).toEqual({ code: 0, out: { status: "pending", attempt: 2 } });
  const pending = await cli("webhook", "show", "--agent", agent.num, "--status", "pending");
  expect((pending.out as { deliveries: unknown[] }).deliveries).toMatchObject([
    { eventId: delivery?.eventId, status: "pending", attempts: 1 },
  ]);
  const byEvent = await cli("webhook", "show", "--agent", agent.num, "--event", "evt_none");
  expect((byEvent.out as { deliveries: unknown[] }).deliveries).toEqual([]);
  const bad = await cli("webhook", "show", "--agent", agent.num, "--status", "lost");
  expect(bad.code).not.toBe(0);
  expect(bad.out).toMatchObject({ error: { code: "validation_error" } });
}, 150_000);
