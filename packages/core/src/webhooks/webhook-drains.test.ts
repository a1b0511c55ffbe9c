import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { forgetWorkers, heartbeatWorkers } from "../jobs/stale-workers";
import { metrics } from "../metrics";
import { createTestDeps, taggedEvent } from "../testing";
import { releaseDrainLease, takeDrainLease } from "./drain-leases";
import { putWebhook } from "./webhook-config";
import { WebhookDrains, type WebhookDrainsOptions } from "./webhook-drains";

// Real drains over a real database and a real local receiver; two `WebhookDrains` stand for two
// worker processes (each hears every wake-up, as processes do).
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1", JOB_LOCK_STALE_S: "30" },
  });
});
afterAll(() => t.close());

/** Every POST's agent and event seq, in arrival order, and the most in flight at once per agent. */
async function receiver(delayMs = 0) {
  const arrivals: { agentId: string; seq: number }[] = [];
  const inFlight = new Map<string, number>();
  let mostInFlight = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const event = JSON.parse(body) as { agent_id?: string; seq: number };
      const agentId = req.url?.slice(1) ?? "";
      inFlight.set(agentId, (inFlight.get(agentId) ?? 0) + 1);
      mostInFlight = Math.max(mostInFlight, inFlight.get(agentId) ?? 0);
      arrivals.push({ agentId, seq: event.seq });
      setTimeout(() => {
        inFlight.set(agentId, (inFlight.get(agentId) ?? 1) - 1);
        res.end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, arrivals, mostInFlight: () => mostInFlight };
}

async function hookedAgent(base: string): Promise<string> {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Drained" });
  // The path names the agent, so the receiver can tell agents apart.
  await putWebhook(t.deps, agent.id, `${base}/${agent.id}`);
  return agent.id;
}

const emit = async (agentId: string, n: number) => {
  const seqs: number[] = [];
  for (let i = 0; i < n; i++) {
    const [event] = await t.deps.db.transaction((tx) =>
      appendEvents(tx, t.clock.now(), [taggedEvent(agentId, i)]),
    );
    seqs.push(event?.seq as number);
  }
  return seqs;
};

/**
 * A process's drains, its holder stamped alive first (as the job runner does); stopped, and
 * forgotten, when the test ends.
 */
async function drains(options: Partial<WebhookDrainsOptions> = {}) {
  const created = new WebhookDrains(t.deps, {
    concurrency: 4,
    sliceMs: 1000,
    sweepMs: 60_000,
    ...options,
  });
  await heartbeatWorkers(t.deps.db, [created.holder]);
  onTestFinished(async () => {
    await created.stop();
    await forgetWorkers(t.deps.db, [created.holder]);
  });
  return created;
}

/** How many lease takes found the lease held by another drain, so far. */
async function takesRefused(): Promise<number> {
  const { values } = await metrics.drainTakes.get();
  return values.find((v) => v.labels.outcome === "held")?.value ?? 0;
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("drain leases", () => {
  it("one holder at a time; a wake-up while held makes the holder read again before letting go", async () => {
    const { base } = await receiver();
    const agentId = await hookedAgent(base);
    await heartbeatWorkers(t.deps.db, ["lease-a", "lease-b"]);
    const stale = t.config.JOB_LOCK_STALE_S;
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-a", stale)).toBe(true);
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-b", stale)).toBe(false);
    // b was woken while a held it: a reads again (the flag cleared), then lets go.
    expect(await releaseDrainLease(t.deps.sql, agentId, "lease-a")).toBe("again");
    expect(await releaseDrainLease(t.deps.sql, agentId, "lease-a")).toBe("released");
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-b", stale)).toBe(true);
    expect(await releaseDrainLease(t.deps.sql, agentId, "lease-b")).toBe("released");
  });

  it("a holder not seen for JOB_LOCK_STALE_S loses its lease to the next taker", async () => {
    const { base } = await receiver();
    const agentId = await hookedAgent(base);
    const stale = t.config.JOB_LOCK_STALE_S;
    await t.deps.sql`insert into job_worker_heartbeats (worker_id, seen_at)
      values ('lease-dead', now() - make_interval(secs => ${stale + 1})),
             ('lease-live', now())
      on conflict (worker_id) do update set seen_at = excluded.seen_at`;
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-dead", stale)).toBe(true);
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-live", stale)).toBe(true);
    // The one taken for dead finds out when it lets go, and stops.
    expect(await releaseDrainLease(t.deps.sql, agentId, "lease-dead")).toBe("lost");
  });
});

describe("webhook drains", () => {
  it("two processes deliver every event once, in seq order, never two at a time per agent", async () => {
    const hook = await receiver(5);
    const agents = [await hookedAgent(hook.base), await hookedAgent(hook.base)];
    const [a, b] = [await drains(), await drains()];
    await a.start();
    await b.start();
    // Both are woken for both agents all along (as a sweep or a retry's timer would): the lease
    // alone keeps them apart.
    const contend = setInterval(() => {
      for (const agentId of agents) for (const drain of [a, b]) drain.wake(agentId);
    }, 3);
    const committed = await Promise.all(agents.map((agentId) => emit(agentId, 25)));
    await until(() => hook.arrivals.length >= 50);
    clearInterval(contend);
    await new Promise((resolve) => setTimeout(resolve, 200)); // nothing more comes
    agents.forEach((agentId, i) => {
      expect(hook.arrivals.filter((r) => r.agentId === agentId).map((r) => r.seq)).toEqual(
        committed[i],
      );
    });
    expect(hook.mostInFlight()).toBe(1);
  });

  it("each wake-up goes to one of the live drains: they never contend for a lease", async () => {
    const hook = await receiver();
    const agents = await Promise.all(Array.from({ length: 12 }, () => hookedAgent(hook.base)));
    const [a, b] = [await drains(), await drains()];
    await a.start();
    await b.start();
    const refused = await takesRefused();
    await Promise.all(agents.map((agentId) => emit(agentId, 2)));
    await until(() => hook.arrivals.length >= 24);
    expect(await takesRefused()).toBe(refused);
    // And every lease is let go once its agent is drained.
    const held = () => t.deps.sql`
      select 1 from webhook_drain_leases where agent_id = any(${agents}) and holder is not null`;
    for (let tries = 0; (await held()).length > 0 && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await held()).toHaveLength(0);
  });

  it("an agent past its slice yields to agents waiting behind it", async () => {
    const hook = await receiver();
    const [first, second] = [await hookedAgent(hook.base), await hookedAgent(hook.base)];
    // Committed while no drains ran: nothing heard the wake-ups.
    await emit(first, 3);
    await emit(second, 3);
    const one = await drains({ concurrency: 1, sliceMs: 0 });
    one.wake(first);
    one.wake(second);
    await until(() => hook.arrivals.length >= 6);
    expect(hook.arrivals.map((r) => r.agentId)).toEqual([
      first,
      second,
      first,
      second,
      first,
      second,
    ]);
  });

  it("the sweep finds what no wake-up reached, and a dead holder's agents", async () => {
    const hook = await receiver();
    const missed = await hookedAgent(hook.base);
    const orphaned = await hookedAgent(hook.base);
    const [missedSeq] = await emit(missed, 1);
    // A holder that died holding the lease: never stamped alive.
    expect(await takeDrainLease(t.deps.sql, orphaned, "died-holding", 30)).toBe(true);
    const [orphanedSeq] = await emit(orphaned, 1);
    const late = await drains();
    await late.start(); // sweeps once at the start
    await until(() => hook.arrivals.length >= 2);
    expect(hook.arrivals).toEqual(
      expect.arrayContaining([
        { agentId: missed, seq: missedSeq },
        { agentId: orphaned, seq: orphanedSeq },
      ]),
    );
  });

  it("stopping lets go of every lease it holds", async () => {
    const hook = await receiver(50);
    const agentId = await hookedAgent(hook.base);
    const stopping = await drains({ sliceMs: 0 });
    await stopping.start();
    const seqs = await emit(agentId, 5);
    await until(() => hook.arrivals.length >= 1);
    await stopping.stop();
    const [lease] = await t.deps.sql<{ holder: string | null }[]>`
      select holder from webhook_drain_leases where agent_id = ${agentId}`;
    expect(lease?.holder).toBeNull();
    // Another process goes on from there.
    const next = await drains();
    await next.start();
    await until(() => hook.arrivals.length >= 5);
    expect(hook.arrivals.map((r) => r.seq)).toEqual(seqs);
  });
});
