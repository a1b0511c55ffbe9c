import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { appendEvents, createTestDeps, taggedEvent } from "../testing";
import { cleanupExpired } from "./cleanup";

let kept: Awaited<ReturnType<typeof createTestDeps>>;
let pruned: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  kept = await createTestDeps();
  pruned = await createTestDeps({
    env: { EVENT_RETENTION_DAYS: "30", DELIVERY_RETENTION_DAYS: "7" },
  });
});
afterAll(async () => {
  await kept?.close();
  await pruned?.close();
});

/** Two events 40 days apart for one agent, each with a finished delivery record. */
async function history(t: typeof kept) {
  const owner = await createUser(t.deps, {});
  const { id: agentId } = await createAgent(t.deps, { ownerId: owner.id, displayName: "Kept" });
  const at = (iso: string) =>
    t.deps.db.transaction((tx) => appendEvents(tx, new Date(iso), [taggedEvent(agentId, iso)]));
  const [old] = await at("2026-01-01T00:00:00Z");
  const [recent] = await at("2026-02-10T00:00:00Z");
  for (const event of [old, recent])
    await t.deps.db.insert(schema.webhookDeliveries).values({
      agentId,
      eventId: event?.id as string,
      eventSeq: event?.seq as number,
      eventType: event?.type as string,
      status: "succeeded",
      createdAt: new Date(event?.ts as string),
      updatedAt: new Date(event?.ts as string),
    });
  t.clock.set("2026-02-12T00:00:00Z");
  return { agentId, old, recent };
}

it("keeps every event and delivery by default (agents may replay from 0)", async () => {
  const { agentId } = await history(kept);
  expect(await cleanupExpired(kept.deps)).toMatchObject({ events: 0, deliveries: 0 });
  expect((await readEvents(kept.deps, agentId, 0, 10)).events).toHaveLength(2);
});

it("with a retention, drops events and finished deliveries past it, and only those", async () => {
  const { agentId, recent } = await history(pruned);
  expect(await cleanupExpired(pruned.deps)).toMatchObject({ events: 1, deliveries: 1 });
  expect((await readEvents(pruned.deps, agentId, 0, 10)).events.map((e) => e.id)).toEqual([
    recent?.id,
  ]);
  const left = await pruned.deps.db
    .select({ eventId: schema.webhookDeliveries.eventId })
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.agentId, agentId));
  expect(left).toEqual([{ eventId: recent?.id }]);
});
