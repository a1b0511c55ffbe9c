import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeps } from "../deps";
import { CoreError } from "../errors";
import { createTestDeps } from "../testing";
import { appendEvents } from "./append-event";
import { notifyTopics } from "./notifier";
import { pollEvents } from "./poll-events";
import { latestSeq, readEvents } from "./read-events";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { LONGPOLL_MAX_PARKED: "2" } });
});
afterAll(() => t.close());

const append = (agentId: string, payload: Record<string, unknown> = {}) =>
  t.deps.db.transaction((tx) =>
    appendEvents(tx, t.clock.now(), [{ agentId, type: "test.event", payload }]),
  );

describe("event log", () => {
  it("gives envelopes with evt_ ids and a seq that grows", async () => {
    const [a] = await append("agt_envelope", { n: 1 });
    const [b] = await append("agt_envelope", { n: 2 });
    expect(a).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: "test.event",
      agentId: "agt_envelope",
      payload: { n: 1 },
    });
    expect(b!.seq).toBeGreaterThan(a!.seq);
    const read = await readEvents(t.deps, "agt_envelope", 0, 100);
    expect(read.events.map((e) => e.payload.n)).toEqual([1, 2]);
    expect(read.nextSeq).toBe(b!.seq);
    expect(await latestSeq(t.deps, "agt_envelope")).toBe(b!.seq);
    expect(await latestSeq(t.deps, "agt_nobody")).toBe(0);
    expect(await readEvents(t.deps, "agt_envelope", b!.seq, 100)).toEqual({
      events: [],
      nextSeq: b!.seq,
    });
  });

  it("never lets a reader skip an event while writers commit out of order", async () => {
    const agentId = "agt_concurrent";
    const writers = 6;
    const perWriter = 25;
    // Writers append, then dawdle before committing: with a plain sequence a later seq would
    // commit first and a reader past it would never see the earlier one.
    const write = async (writer: number) => {
      for (let i = 0; i < perWriter; i++) {
        await t.deps.db.transaction(async (tx) => {
          await appendEvents(tx, t.clock.now(), [
            { agentId, type: "test.event", payload: { writer, i } },
          ]);
          await tx.execute(sql`select pg_sleep(${Math.random() * 0.004})`);
        });
      }
    };
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      let cursor = 0;
      while (!done || cursor < (await latestSeq(t.deps, agentId))) {
        const page = await readEvents(t.deps, agentId, cursor, 7);
        seen.push(...page.events.map((e) => e.seq));
        cursor = page.nextSeq;
      }
    })();
    await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
    done = true;
    await reader;
    const all = (await readEvents(t.deps, agentId, 0, 1000)).events.map((e) => e.seq);
    expect(all).toHaveLength(writers * perWriter);
    expect(seen).toEqual(all);
  });
});

describe("long-poll", () => {
  it("returns at once when events exist, and times out empty with nextSeq == afterSeq", async () => {
    const [event] = await append("agt_lp_now");
    const now = await pollEvents(t.deps, "agt_lp_now", { afterSeq: 0, limit: 100, wait: 5 });
    expect(now.events).toHaveLength(1);
    const started = Date.now();
    const empty = await pollEvents(t.deps, "agt_lp_now", {
      afterSeq: event!.seq,
      limit: 100,
      wait: 0.3,
    });
    expect(empty).toEqual({ events: [], nextSeq: event!.seq });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("is woken by a commit from another process's connection within milliseconds", async () => {
    const other = createDeps(t.config); // a second pool, as another web process would have
    try {
      await other.deps.sql`select 1`; // connect first: the wake-up is measured, not the handshake
      const cursor = await latestSeq(t.deps, "agt_lp_wake");
      const polling = pollEvents(t.deps, "agt_lp_wake", { afterSeq: cursor, limit: 100, wait: 10 });
      await new Promise((r) => setTimeout(r, 200));
      await other.deps.db.transaction((tx) =>
        appendEvents(tx, new Date(), [{ agentId: "agt_lp_wake", type: "test.event", payload: {} }]),
      );
      const committedAt = performance.now();
      const result = await polling;
      const latency = performance.now() - committedAt;
      expect(result.events).toHaveLength(1);
      // Typically a few ms; the bound is loose because CI runs every package's tests at once.
      expect(latency).toBeLessThan(250);
    } finally {
      await other.close();
    }
  });

  it("parks at most LONGPOLL_MAX_PARKED requests per agent, then 429 rate_limited", async () => {
    const controller = new AbortController();
    const parked = [1, 2].map(() =>
      pollEvents(t.deps, "agt_lp_cap", { afterSeq: 0, limit: 100, wait: 20 }, controller.signal),
    );
    await new Promise((r) => setTimeout(r, 200));
    const third = await pollEvents(t.deps, "agt_lp_cap", {
      afterSeq: 0,
      limit: 100,
      wait: 20,
    }).catch((e) => e);
    expect(third).toBeInstanceOf(CoreError);
    expect(third.code).toBe("rate_limited");
    // Another agent is not affected, and a freed slot is reusable.
    const other = pollEvents(t.deps, "agt_lp_cap_other", { afterSeq: 0, limit: 100, wait: 0.1 });
    expect((await other).events).toEqual([]);
    controller.abort();
    await Promise.all(parked);
    expect(
      (await pollEvents(t.deps, "agt_lp_cap", { afterSeq: 0, limit: 100, wait: 0.1 })).events,
    ).toEqual([]);
  });

  it("watch yields once at start, then once per burst of wake-ups, until aborted", async () => {
    const controller = new AbortController();
    const wakes = t.deps.notifier.watch("user:usr_watch", controller.signal);
    const next = () => wakes.next();
    expect(await next()).toEqual({ done: false, value: undefined }); // the initial read
    // Three notifications while the consumer is busy coalesce into one wake-up.
    for (let i = 0; i < 3; i++) await notifyTopics(t.deps.db, ["user:usr_watch"]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await next()).done).toBe(false);
    const waiting = next();
    const early = await Promise.race([waiting, new Promise((r) => setTimeout(r, 150, "idle"))]);
    expect(early).toBe("idle"); // nothing pending, so it waits
    await notifyTopics(t.deps.db, ["user:usr_other", "user:usr_watch"]);
    expect((await waiting).done).toBe(false);
    const last = next();
    controller.abort();
    expect((await last).done).toBe(true);
  });
});
