import { type AddressInfo, connect, createServer } from "node:net";
import { createDb, withDatabase } from "@switchboard/db";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ManualClock } from "../clock";
import { blockAgent } from "../consent/agent-settings";
import { addContact } from "../contacts/contacts";
import { createDeps } from "../create-deps";
import { CoreError } from "../errors";
import { mintAgentToken, revokeAgentToken } from "../identity/agent-tokens";
import { createAgent, pauseAgent, resumeAgent } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { sendPersonMessage } from "../messaging/send-person-message";
import { createTestDeps, eventTag, taggedEvent } from "../testing";
import { pollEvents } from "../updates/poll-events";
import { appendEvents } from "./append-event";
import {
  NOTIFY_CHANNEL,
  Notifier,
  notifyTopics,
  type Topic,
  userTopic,
  wakeAfterCommit,
} from "./notifier";
import { latestSeq, readEvents } from "./read-events";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { LONGPOLL_MAX_PARKED: "2" } });
});
afterAll(() => t.close());

const append = (agentId: string, tag: string | number = "") =>
  t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agentId, tag)]));

describe("event log", () => {
  it("gives envelopes with evt_ ids and a seq that grows", async () => {
    const [a] = await append("agt_envelope", 1);
    const [b] = await append("agt_envelope", 2);
    expect(a).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      type: "contact.added",
      agentId: "agt_envelope",
    });
    expect(b!.seq).toBeGreaterThan(a!.seq);
    const read = await readEvents(t.deps, "agt_envelope", 0, 100);
    expect(read.events[0]?.payload).toEqual(taggedEvent("agt_envelope", 1).payload);
    expect(read.events.map(eventTag)).toEqual(["1", "2"]);
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
          await appendEvents(tx, t.clock.now(), [taggedEvent(agentId, `${writer}.${i}`)]);
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
  }, 60_000); // 150 serialised commits and a busy reader: slow when CI runs every package at once
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
        appendEvents(tx, new Date(), [taggedEvent("agt_lp_wake")]),
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

  it("is woken by a wake-up issued after another process's commit (a person's send)", async () => {
    const other = createDeps(t.config); // a second pool, as another web process would have
    try {
      const person = await createUser(t.deps, {});
      const { id: agentId } = await createAgent(t.deps, {
        ownerId: (await createUser(t.deps, {})).id,
        displayName: "Woken",
      });
      await addContact(t.deps, person.id, agentId, []);
      await other.deps.sql`select 1`;
      const cursor = await latestSeq(t.deps, agentId);
      const polling = pollEvents(t.deps, agentId, { afterSeq: cursor, limit: 100, wait: 10 });
      await new Promise((r) => setTimeout(r, 200));
      const sentAt = performance.now();
      await sendPersonMessage(other.deps, person.id, agentId, { type: "text", content: "hi" });
      const result = await polling;
      expect(result.events.map((event) => event.type)).toEqual(["message.received"]);
      expect(performance.now() - sentAt).toBeLessThan(500);
    } finally {
      await other.close();
    }
  });

  it("a wake-up lost after the commit delays a parked poll to the end of its wait, never more", async () => {
    const cursor = await latestSeq(t.deps, "agt_lp_lost");
    const started = performance.now();
    const polling = pollEvents(t.deps, "agt_lp_lost", { afterSeq: cursor, limit: 100, wait: 0.8 });
    await new Promise((r) => setTimeout(r, 100));
    // The process died between the commit and its wake-up: the wake-ups are never issued.
    const lost: Topic[] = [];
    await t.deps.db.transaction((tx) =>
      appendEvents(tx, t.clock.now(), [taggedEvent("agt_lp_lost", "lost")], lost),
    );
    expect(lost).toContain("agent:agt_lp_lost");
    const result = await polling;
    expect(result.events.map(eventTag)).toEqual(["lost"]);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(750);
    expect(waited).toBeLessThan(1500);
  });

  it("coalesces after-commit wake-ups: one NOTIFY per statement in flight, every topic heard", async () => {
    const listener = createDeps(t.config); // another process's LISTEN, counting notifications
    const payloads: string[] = [];
    try {
      await listener.deps.sql.listen(NOTIFY_CHANNEL, (payload) => {
        if (payload.includes("agt_coalesce")) payloads.push(payload);
      });
      const topics = (n: number) => [`agent:agt_coalesce${n}` as const];
      // Three commits in one tick: one statement. Two more while it is in flight: the next one.
      const first = [1, 2, 3].map((n) => wakeAfterCommit(t.deps.sql, topics(n)));
      await Promise.resolve();
      await new Promise((r) => setImmediate(r));
      const second = [4, 5, 4].map((n) => wakeAfterCommit(t.deps.sql, topics(n)));
      await Promise.all([...first, ...second]);
      await expect.poll(() => payloads.flatMap((p) => p.split(",")).length).toBe(5);
      expect(payloads).toHaveLength(2);
      expect(payloads[0]!.split(",").sort()).toEqual([1, 2, 3].map((n) => topics(n)[0]));
      expect(payloads[1]!.split(",").sort()).toEqual([4, 5].map((n) => topics(n)[0]));
    } finally {
      await listener.close();
    }
  });

  it("a wake-up for people's apps waits out its window for others; any other topic goes at once, taking it along", async () => {
    const listener = createDeps(t.config); // another process's LISTEN, counting notifications
    const heard: { at: number; topics: string[] }[] = [];
    try {
      await listener.deps.sql.listen(NOTIFY_CHANNEL, (payload) => {
        if (payload.includes("_window")) heard.push({ at: Date.now(), topics: payload.split(",") });
      });
      // People's topics alone: nothing goes out before the window ends, then one statement.
      const start = Date.now();
      const alone = wakeAfterCommit(t.deps.sql, [userTopic("usr_window1")], 400);
      void wakeAfterCommit(t.deps.sql, [userTopic("usr_window2")], 400);
      await alone;
      await expect.poll(() => heard.length).toBe(1);
      expect(heard[0]!.at - start).toBeGreaterThanOrEqual(390);
      expect(heard[0]!.topics.sort()).toEqual(["user:usr_window1", "user:usr_window2"]);

      // An agent's topic does not wait: it starts the statement and the waiting one joins it.
      const waiting = wakeAfterCommit(t.deps.sql, [userTopic("usr_window3")], 60_000);
      await new Promise((r) => setTimeout(r, 100));
      expect(heard).toHaveLength(1);
      const added = Date.now();
      await Promise.all([waiting, wakeAfterCommit(t.deps.sql, ["agent:agt_window"])]);
      await expect.poll(() => heard.length).toBe(2);
      expect(heard[1]!.at - added).toBeLessThan(10_000);
      expect(heard[1]!.topics.sort()).toEqual(["agent:agt_window", "user:usr_window3"]);
    } finally {
      await listener.close();
    }
  });

  it("closing a process's deps sends the wake-ups still waiting in a people's window", async () => {
    const listener = createDeps(t.config); // an open console's process
    const closing = createDeps(t.config); // a CLI command, say
    const heard: string[] = [];
    try {
      await listener.deps.sql.listen(NOTIFY_CHANNEL, (payload) => {
        if (payload.includes("usr_closing")) heard.push(payload);
      });
      void wakeAfterCommit(closing.deps.sql, [userTopic("usr_closing")], 60_000);
      await closing.close();
      await expect.poll(() => heard).toEqual(["user:usr_closing"]);
    } finally {
      await listener.close();
    }
  });

  it("a first LISTEN that failed is tried again by the next subscriber", async () => {
    // A database that does not exist yet: the first LISTEN fails, as it would while Postgres
    // is briefly unreachable at start.
    const { adminUrl } = inject("testDatabase");
    const name = `sb_listen_${Date.now().toString(36)}`;
    const { sql: late, close } = createDb(withDatabase(adminUrl, name), { max: 2 });
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    const notifier = new Notifier(late);
    try {
      await expect(notifier.subscribe("agent:agt_late", () => {})).rejects.toThrow(
        /does not exist/,
      );
      await admin.unsafe(`create database ${name}`);
      let woken = 0;
      // A subscriber may still join an attempt that began before the database was there; the
      // next one then tries again (without the fix, every later subscriber fails for good).
      let unsubscribe: (() => void) | undefined;
      for (let tries = 0; !unsubscribe && tries < 5; tries++)
        unsubscribe = await notifier
          .subscribe("agent:agt_late", () => woken++)
          .catch(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 300)));
      expect(unsubscribe).toBeDefined();
      await late`select pg_notify(${NOTIFY_CHANNEL}, 'agent:agt_late')`;
      for (let i = 0; i < 50 && woken === 0; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 200));
      expect(woken).toBe(1); // one wake-up: a revived failed attempt does not dispatch twice
      unsubscribe?.();
    } finally {
      await close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });

  it("an after-commit wake-up that found Postgres out of reach is issued again once it is back", async () => {
    // Postgres behind a port where nothing listens yet stands for a restart: connecting is refused.
    const database = new URL(t.config.DATABASE_URL!);
    const gap = createServer();
    await new Promise<void>((r) => gap.listen(0, "127.0.0.1", r));
    const port = (gap.address() as AddressInfo).port;
    await new Promise((r) => gap.close(r));
    const behind = new URL(database);
    behind.hostname = "127.0.0.1";
    behind.port = String(port);
    const { sql: restarting, close } = createDb(behind.href, { max: 1 });
    const heard: string[] = [];
    const listening = await t.deps.sql.listen(NOTIFY_CHANNEL, (payload) => {
      if (payload.includes("agt_wake_retry")) heard.push(payload);
    });
    const proxy = createServer((client) => {
      const upstream = connect(Number(database.port || 5432), database.hostname);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on("error", end).on("close", end);
      upstream.on("error", end).on("close", end);
    });
    try {
      const issued = wakeAfterCommit(restarting, ["agent:agt_wake_retry"]);
      await new Promise((r) => setTimeout(r, 100));
      await new Promise<void>((r) => proxy.listen(port, "127.0.0.1", r)); // Postgres is back
      await issued;
      await expect.poll(() => heard).toEqual(["agent:agt_wake_retry"]);
    } finally {
      await listening.unlisten();
      await close();
      await new Promise((r) => proxy.close(r));
    }
  });

  it("a LISTEN connection that was cut and came back wakes every subscriber to re-read", async () => {
    // Another process, named so that its LISTEN connection can be picked out.
    const url = new URL(t.config.DATABASE_URL!);
    url.searchParams.set("application_name", "sb_relisten");
    const other = createDeps({ ...t.config, DATABASE_URL: url.href });
    try {
      const wakes: (string | undefined)[] = [];
      const unsubscribe = await other.deps.notifier.subscribe("user:usr_relisten", (change) =>
        wakes.push(change),
      );
      // Postgres ends the connection that listens (a restart or failover would).
      const [cut] = await t.deps.sql`select count(pg_terminate_backend(pid))::int as n
        from pg_stat_activity where application_name = 'sb_relisten' and query ilike 'listen%'`;
      expect(cut?.n).toBe(1);
      await expect.poll(() => wakes, { timeout: 15_000 }).toEqual([undefined]);
      unsubscribe();
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
    expect(await next()).toEqual({ done: false, value: null }); // the initial read: everything
    // Three notifications while the consumer is busy coalesce into one wake-up.
    for (let i = 0; i < 3; i++) await notifyTopics(t.deps.db, ["user:usr_watch"]);
    await new Promise((r) => setTimeout(r, 100));
    expect(await next()).toEqual({ done: false, value: null });
    const waiting = next();
    const early = await Promise.race([waiting, new Promise((r) => setTimeout(r, 150, "idle"))]);
    expect(early).toBe("idle"); // nothing pending, so it waits
    await notifyTopics(t.deps.db, ["user:usr_other", "user:usr_watch"]);
    expect((await waiting).done).toBe(false);
    const last = next();
    controller.abort();
    expect((await last).done).toBe(true);
  });

  it("names what changed: a burst yields the union of its changes, or null if one named none", async () => {
    const controller = new AbortController();
    const wakes = t.deps.notifier.watch("user:usr_named", controller.signal);
    await wakes.next(); // the initial read
    await notifyTopics(t.deps.db, [
      userTopic("usr_named", "chat:cnv_a"),
      userTopic("usr_other", "chat:cnv_x"),
    ]);
    await notifyTopics(t.deps.db, [userTopic("usr_named", "webhook:agt_b")]);
    await notifyTopics(t.deps.db, [userTopic("usr_named", "chat:cnv_a")]);
    await new Promise((r) => setTimeout(r, 100));
    const burst = await wakes.next();
    expect(new Set(burst.value)).toEqual(new Set(["chat:cnv_a", "webhook:agt_b"]));
    // A write that names nothing makes the whole burst "anything may have changed".
    await notifyTopics(t.deps.db, [userTopic("usr_named", "records")]);
    await notifyTopics(t.deps.db, ["user:usr_named"]);
    await new Promise((r) => setTimeout(r, 100));
    expect((await wakes.next()).value).toBeNull();
    controller.abort();
    await wakes.next();
  });

  it("skips the start's yield for a view read after the last notification, or names what changed since", async () => {
    const clock = new ManualClock();
    const notifier = new Notifier(t.deps.sql, clock);
    const controller = new AbortController();
    const topic = "user:usr_since";
    const start = (wakes: AsyncGenerator<string[] | null>) =>
      Promise.race([wakes.next(), new Promise((r) => setTimeout(r, 150, "idle"))]);

    // Read before this process listened: it cannot know what it missed, so the start re-reads.
    const before = notifier.watch(topic, controller.signal, clock.now().getTime());
    expect(await start(before)).toEqual({ done: false, value: null });

    // Read since, with nothing notified after: no start yield; the next notification is first.
    clock.advance(5000);
    const quiet = notifier.watch(topic, controller.signal, clock.now().getTime());
    const first = quiet.next();
    expect(await Promise.race([first, new Promise((r) => setTimeout(r, 150, "idle"))])).toBe(
      "idle",
    );
    await notifyTopics(t.deps.db, [userTopic("usr_since", "chat:cnv_1")]);
    expect(await first).toEqual({ done: false, value: ["chat:cnv_1"] });
    const heardAt = clock.now().getTime();

    // Read within the clocks' leeway of that notification: it may have missed it, and re-reads
    // what it named (the chat), not everything.
    clock.advance(5000);
    const close = notifier.watch(topic, controller.signal, heardAt + 500);
    expect(await start(close)).toEqual({ done: false, value: ["chat:cnv_1"] });
    // Read well after it, or after another person's notification: nothing to re-read.
    await notifyTopics(t.deps.db, [userTopic("usr_since_other", "records")]);
    await new Promise((r) => setTimeout(r, 100));
    expect(await start(notifier.watch(topic, controller.signal, heardAt + 2000))).toBe("idle");
    // Changes named since the read come at the start, as one burst; a notification that named
    // nothing makes it everything.
    const named = notifier.watch(topic, controller.signal, clock.now().getTime());
    await notifyTopics(t.deps.db, [userTopic("usr_since", "read:cnv_1")]);
    await notifyTopics(t.deps.db, [userTopic("usr_since", "records")]);
    await new Promise((r) => setTimeout(r, 100));
    const read = notifier.watch(topic, controller.signal, clock.now().getTime() - 500);
    const burst = async (wakes: AsyncGenerator<string[] | null>) =>
      new Set(((await start(wakes)) as IteratorResult<string[] | null>).value);
    expect(await burst(read)).toEqual(new Set(["read:cnv_1", "records"]));
    expect(await burst(named)).toEqual(new Set(["read:cnv_1", "records"]));
    await notifyTopics(t.deps.db, [topic]);
    await new Promise((r) => setTimeout(r, 100));
    const unnamed = notifier.watch(topic, controller.signal, clock.now().getTime() - 500);
    expect(await start(unnamed)).toEqual({ done: false, value: null });
    // Read longer ago than the process remembers: the start re-reads.
    clock.advance(60_000);
    expect(await start(notifier.watch(topic, controller.signal, heardAt + 2000))).toEqual({
      done: false,
      value: null,
    });
    controller.abort();
  });

  it("hands each subscriber of a user's topic what changed, or undefined", async () => {
    const heard: (string | undefined)[] = [];
    const stop = await t.deps.notifier.subscribe("user:usr_sub", (change) => heard.push(change));
    await notifyTopics(t.deps.db, [userTopic("usr_sub", "thread:eth_1"), "user:usr_sub"]);
    await notifyTopics(t.deps.db, [userTopic("usr_subX", "records")]); // a longer id: not ours
    await expect.poll(() => heard.length, { timeout: 5000 }).toBe(2);
    await new Promise((r) => setTimeout(r, 100));
    expect(heard).toEqual(["thread:eth_1", undefined]);
    stop();
  });

  it("wakes every topic of a burst too large for one NOTIFY payload (a feed post to many)", async () => {
    const topics = Array.from({ length: 600 }, (_, i) => `user:usr_many_${i}` as const);
    const woken = new Set<string>();
    const stops = await Promise.all(
      [0, 299, 599].map((i) =>
        t.deps.notifier.subscribe(topics[i] as (typeof topics)[number], () => woken.add(`${i}`)),
      ),
    );
    await t.deps.db.transaction((tx) => notifyTopics(tx, topics));
    await expect.poll(() => [...woken].sort(), { timeout: 5000 }).toEqual(["0", "299", "599"]);
    for (const stop of stops) stop();
  });
});

describe("owner control reaches parked long-polls", () => {
  it("a parked poll answers at once with agent_paused, token_revoked or unauthorized", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Parked" });
    const cases = [
      { act: () => pauseAgent(t.deps, agent.id), code: "agent_paused" },
      {
        act: (token: string) => revokeAgentToken(t.deps, { token }),
        code: "token_revoked",
      },
      { act: () => setUserSuspended(t.deps, owner.id, true), code: "unauthorized" },
    ];
    for (const { act, code } of cases) {
      await resumeAgent(t.deps, agent.id);
      const { token, info } = await mintAgentToken(t.deps, agent.id);
      const cursor = await latestSeq(t.deps, agent.id);
      const query = { afterSeq: cursor, limit: 100, wait: 20 };
      const polling = pollEvents(t.deps, agent.id, query, undefined, info.id).then(
        () => null,
        (error: unknown) => error,
      );
      await new Promise((r) => setTimeout(r, 200)); // parked
      const acted = performance.now();
      await act(token);
      const error = await polling;
      expect(performance.now() - acted).toBeLessThan(1000);
      expect(error).toBeInstanceOf(CoreError);
      expect((error as CoreError).code).toBe(code);
    }
    await setUserSuspended(t.deps, owner.id, false);
  });

  it("a person's block wakes the check but leaves a poll whose agent may act parked", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Still ok" });
    const person = await createUser(t.deps, {});
    await addContact(t.deps, person.id, agent.id, []);
    const { info } = await mintAgentToken(t.deps, agent.id);
    const cursor = await latestSeq(t.deps, agent.id);
    const started = performance.now();
    const polling = pollEvents(
      t.deps,
      agent.id,
      { afterSeq: cursor, limit: 100, wait: 1 },
      undefined,
      info.id,
    );
    await new Promise((r) => setTimeout(r, 200));
    await blockAgent(t.deps, person.id, agent.id);
    expect((await polling).events).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });
});
