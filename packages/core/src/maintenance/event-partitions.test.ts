import { afterAll, beforeAll, expect, it } from "vitest";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { appendEvents, createTestDeps, taggedEvent } from "../testing";
import { cleanupExpired } from "./cleanup";
import { eventPartitions, partitionDays } from "./event-partitions";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { EVENT_RETENTION_DAYS: "30" } });
});
afterAll(async () => {
  await t?.close();
});

const DAY = 24 * 3600_000;

/** The partitions' bounds as offsets in days from where the migration's partition ends. */
async function layout(start: number) {
  return (await eventPartitions(t.deps.db)).map((p) => [
    p.name,
    p.from === null ? null : (p.from.getTime() - start) / DAY,
    (p.to.getTime() - start) / DAY,
  ]);
}

async function partitionOf(eventId: string): Promise<string> {
  const [row] = await t.deps.sql<{ part: string }[]>`
    select tableoid::regclass::text as part from events where id = ${eventId}`;
  return row?.part as string;
}

it("a partition covers a quarter of the retention, at least a day, a quarter year when kept", () => {
  expect([0, 1, 4, 7, 30, 365].map(partitionDays)).toEqual([91, 1, 1, 1, 7, 91]);
});

it("keeps partitions ready two days ahead, each added once, and appends land in them", async () => {
  const [history] = await eventPartitions(t.deps.db);
  const start = history ? history.to.getTime() : Number.NaN;
  const name = (offsetDays: number) =>
    `events_${new Date(start + offsetDays * DAY).toISOString().slice(0, 10).replaceAll("-", "")}`;
  t.clock.set(new Date(start - 3600_000));
  expect((await cleanupExpired(t.deps)).eventPartitions.created).toEqual([name(0)]);
  expect((await cleanupExpired(t.deps)).eventPartitions.created).toEqual([]);
  t.clock.set(new Date(start + 5 * DAY + 3600_000)); // two days ahead is past the first one
  expect((await cleanupExpired(t.deps)).eventPartitions.created).toEqual([name(7)]);
  expect(await layout(start)).toEqual([
    ["events_history", null, 0],
    [name(0), 0, 7],
    [name(7), 7, 14],
  ]);

  const owner = await createUser(t.deps, {});
  const { id: agentId } = await createAgent(t.deps, { ownerId: owner.id, displayName: "A" });
  const append = async (at: number) => {
    t.clock.set(new Date(at));
    const [event] = await t.deps.db.transaction((tx) =>
      appendEvents(tx, new Date(at), [taggedEvent(agentId, String(at))]),
    );
    return event?.id as string;
  };
  const ids = [await append(start - DAY), await append(start + DAY), await append(start + 8 * DAY)];
  expect(await Promise.all(ids.map(partitionOf))).toEqual(["events_history", name(0), name(7)]);

  // Past every partition (maintenance stopped): the default takes it, and when maintenance runs
  // again the partition made for that day takes it over (the gap before it holds nothing).
  const late = await append(start + 20 * DAY + 3600_000);
  ids.push(late);
  expect(await partitionOf(late)).toBe("events_default");
  expect((await cleanupExpired(t.deps)).eventPartitions.created).toEqual([name(20)]);
  expect(await partitionOf(late)).toBe(name(20));

  // Reads across partitions answer as one log: seq order, cursors, replay from 0.
  const all = await readEvents(t.deps, agentId, 0, 10);
  expect(all.events.map((e) => e.id)).toEqual(ids);
  const seqs = all.events.map((e) => e.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  const page = await readEvents(t.deps, agentId, seqs[1] as number, 1);
  expect(page).toMatchObject({ nextSeq: seqs[2], events: [{ id: ids[2] }] });
});

it("drops a partition an interrupted retention pass detached but did not drop", async () => {
  const retained = await createTestDeps({ env: { EVENT_RETENTION_DAYS: "30" } });
  try {
    const [history] = await eventPartitions(retained.deps.db);
    const start = history ? history.to.getTime() : Number.NaN;
    retained.clock.set(new Date(start - 3600_000));
    const [created] = (await cleanupExpired(retained.deps)).eventPartitions.created;
    await retained.deps.sql.unsafe(`alter table events detach partition ${created}`);
    const exists = async () =>
      (await retained.deps.sql`select to_regclass(${created as string}) as t`)[0]?.t !== null;
    expect(await exists()).toBe(true);
    retained.clock.set(new Date(start + 31 * DAY)); // only events_history is past
    expect((await cleanupExpired(retained.deps)).eventPartitions.dropped).toEqual([
      "events_history",
    ]);
    expect(await exists()).toBe(false);
  } finally {
    await retained.close();
  }
});
