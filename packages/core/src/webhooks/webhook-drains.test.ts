import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { appendEvents } from "../events/append-event";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { forgetWorkers, heartbeatWorkers } from "../jobs/stale-workers";
import { metrics } from "../metrics";
import { createTestDeps, taggedEvent } from "../testing";
import { releaseDrainLeasesOf, takeDrainLease } from "./drain-leases";
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
    lingerMs: 100,
    ...options,
  });
  await heartbeatWorkers(t.deps.db, [created.holder]);
  onTestFinished(async () => {
    await created.stop();
    await forgetWorkers(t.deps.db, [created.holder]);
  });
  return created;
}

/** How many lease takes so far were `taken`, or found the lease `held` by another drain. */
async function takes(outcome: "taken" | "held"): Promise<number> {
  const { values } = await metrics.drainTakes.get();
  return values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("drain leases", () => {
  it("one holder at a time; a wake-up while held keeps the lease with its holder, who reads again", async () => {
    const { base } = await receiver();
    const agentId = await hookedAgent(base);
    await heartbeatWorkers(t.deps.db, ["lease-a", "lease-b"]);
    const stale = t.config.JOB_LOCK_STALE_S;
    const release = (holder: string) => releaseDrainLeasesOf(t.deps.sql, holder, [agentId]);
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-a", stale)).toBe(true);
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-b", stale)).toBe(false);
    // b was woken while a held it: a cannot let go; taking it again clears the mark.
    expect(await release("lease-a")).toEqual(new Set());
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-a", stale)).toBe(true);
    expect(await release("lease-a")).toEqual(new Set([agentId]));
    expect(await takeDrainLease(t.deps.sql, agentId, "lease-b", stale)).toBe(true);
    expect(await release("lease-b")).toEqual(new Set([agentId]));
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
    // The one taken for dead cannot let go of what is no longer its own.
    expect(await releaseDrainLeasesOf(t.deps.sql, "lease-dead", [agentId])).toEqual(new Set());
    const [lease] = await t.deps.sql<{ holder: string }[]>`
      select holder from webhook_drain_leases where agent_id = ${agentId}`;
    expect(lease?.holder).toBe("lease-live");
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
    const refused = await takes("held");
    await Promise.all(agents.map((agentId) => emit(agentId, 2)));
    await until(() => hook.arrivals.length >= 24);
    expect(await takes("held")).toBe(refused);
    // And every lease is let go once its agent is drained.
    const held = () => t.deps.sql`
      select 1 from webhook_drain_leases where agent_id = any(${agents}) and holder is not null`;
    for (let tries = 0; (await held()).length > 0 && tries < 100; tries++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await held()).toHaveLength(0);
  });

  it("keeps an agent's lease while its events keep coming: one take for many deliveries", async () => {
    const hook = await receiver();
    const agentId = await hookedAgent(hook.base);
    const keeper = await drains({ lingerMs: 60_000 });
    await keeper.start();
    const taken = await takes("taken");
    for (let n = 1; n <= 5; n++) {
      await emit(agentId, 1);
      await until(() => hook.arrivals.length >= n);
    }
    expect((await takes("taken")) - taken).toBe(1);
  });

  it("a wake-up that reaches a process not holding the lease is delivered by the holder", async () => {
    const hook = await receiver();
    const agentId = await hookedAgent(hook.base);
    // Neither started: they act on these wakes only, and sweep nothing.
    const [holding, other] = [await drains({ lingerMs: 50 }), await drains()];
    await emit(agentId, 1);
    holding.wake(agentId);
    await until(() => hook.arrivals.length >= 1);
    const refused = await takes("held");
    const [second] = await emit(agentId, 1);
    other.wake(agentId); // its take finds the lease held, and marks it
    await until(async () => (await takes("held")) > refused);
    await new Promise((resolve) => setTimeout(resolve, 100)); // idle past its linger
    await holding.letGo(); // kept (marked), and the agent drained again
    await until(() => hook.arrivals.length >= 2);
    expect(hook.arrivals.map((r) => r.seq).at(-1)).toBe(second);
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
