import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AppendedEvent } from "../events/append-event";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { appendEvents, createTestDeps, taggedEvent } from "../testing";
import { cleanupExpired } from "./cleanup";
import { eventPartitions } from "./event-partitions";

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

const DAY = 24 * 3600_000;

/**
 * Where the partition the migration moved the log into ends (the end of the day it ran, UTC):
 * the partitions maintenance adds start there, so the tests' days are counted from it.
 */
async function historyEnd(t: typeof kept): Promise<number> {
  const [history] = await eventPartitions(t.deps.db);
  expect(history?.name).toBe("events_history");
  return history ? history.to.getTime() : Number.NaN;
}

/** An agent whose events each get a delivery waiting to be sent (never dropped on its own). */
async function agentWithWebhook(t: typeof kept) {
  const owner = await createUser(t.deps, {});
  const { id: agentId } = await createAgent(t.deps, { ownerId: owner.id, displayName: "Kept" });
  const append = async (at: number) => {
    t.clock.set(new Date(at));
    const [event] = await t.deps.db.transaction((tx) =>
      appendEvents(tx, new Date(at), [taggedEvent(agentId, String(at))]),
    );
    await t.deps.db.insert(schema.webhookDeliveries).values({
      agentId,
      eventId: event?.id as string,
      eventSeq: event?.seq as number,
      eventType: event?.type as string,
      status: "pending",
      createdAt: new Date(at),
      updatedAt: new Date(at),
    });
    return event as AppendedEvent;
  };
  const shown = async () => (await readEvents(t.deps, agentId, 0, 10)).events.map((e) => e.id);
  const delivered = async () =>
    (
      await t.deps.db
        .select({ eventId: schema.webhookDeliveries.eventId })
        .from(schema.webhookDeliveries)
        .where(eq(schema.webhookDeliveries.agentId, agentId))
        .orderBy(schema.webhookDeliveries.eventSeq)
    ).map((d) => d.eventId);
  return { append, shown, delivered };
}

it("keeps every event and delivery by default (agents may replay from 0)", async () => {
  const start = await historyEnd(kept);
  const { append, shown } = await agentWithWebhook(kept);
  const old = await append(start - 400 * DAY);
  const recent = await append(start - DAY);
  kept.clock.set(new Date(start + 3 * 365 * DAY));
  const result = await cleanupExpired(kept.deps);
  expect(result).toMatchObject({ strayEvents: 0, deliveries: 0 });
  expect(result.eventPartitions.dropped).toEqual([]);
  expect(await shown()).toEqual([old.id, recent.id]);
});

it("with a retention, drops events once their whole partition is past it, with their deliveries", async () => {
  const start = await historyEnd(pruned);
  const { append, shown, delivered } = await agentWithWebhook(pruned);
  // The retention is 30 days, so a partition covers 7.
  const old = await append(start - 3600_000); // in the migration's partition
  expect((await cleanupExpired(pruned.deps)).eventPartitions.created).toHaveLength(1);
  const straddler = await append(start + 3 * DAY); // in the partition [start, start + 7 days)
  const stray = await append(start + 10 * DAY); // no maintenance since: the default partition
  const everything = [old.id, straddler.id, stray.id];
  expect(await shown()).toEqual(everything);

  // 34 days on, the migration's partition is wholly past: it goes with its event and delivery.
  // The straddler is 31 days old too, but its partition is not wholly past yet: it stays.
  pruned.clock.set(new Date(start + 34 * DAY));
  const first = await cleanupExpired(pruned.deps);
  expect(first).toMatchObject({ strayEvents: 0, deliveries: 1 });
  expect(first.eventPartitions.dropped).toEqual(["events_history"]);
  expect(await shown()).toEqual([straddler.id, stray.id]);
  expect(await delivered()).toEqual([straddler.id, stray.id]);
  expect(await pruned.deps.sql`select to_regclass('events_history') as t`).toEqual([{ t: null }]);

  // Once its partition is wholly past, the straddler goes; the stray one is not 30 days old.
  pruned.clock.set(new Date(start + 37 * DAY + 3600_000));
  const second = await cleanupExpired(pruned.deps);
  expect(second.eventPartitions.dropped).toHaveLength(1);
  expect(second).toMatchObject({ strayEvents: 0, deliveries: 1 });
  expect(await shown()).toEqual([stray.id]);

  // A row no partition took is deleted on its own once it is past the retention.
  pruned.clock.set(new Date(start + 41 * DAY));
  expect(await cleanupExpired(pruned.deps)).toMatchObject({ strayEvents: 1, deliveries: 1 });
  expect(await shown()).toEqual([]);
  expect(await delivered()).toEqual([]);
});
