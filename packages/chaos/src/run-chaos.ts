import { openSync } from "node:fs";
import type { AgentEvent } from "@switchboard/contract";
import { createDeps, loadConfig } from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import { type Check, committedEvents, runChecks } from "./checks";
import { type Cluster, residentBytes, sleep, startCluster } from "./cluster";
import { CpuMeter, type CpuUse } from "./cpu";
import { guardHarnessSockets } from "./harness-sockets";
import { Ledger } from "./ledger";
import { World } from "./load";
import { connectionCeiling, type Sample, soakChecks } from "./soak";

export interface ChaosOptions {
  durationMs: number;
  /** Soak: no kills, no restart; memory and connections sampled and judged. */
  soak: boolean;
  basePort?: number;
  seed: number;
  /** Where the service processes' output goes. */
  logFile: string;
  log: (line: string) => void;
  /** False: use the web build as it is (`--no-build`). */
  build?: boolean;
}

export interface ChaosReport {
  ok: boolean;
  checks: Check[];
  ledger: Ledger;
  events: number;
  deliveries: number;
  samples: Sample[];
  world: World;
  /** The CPU spent while the load ran (faults included), and the sends answered meanwhile. */
  load: { cpu: CpuUse; sends: number };
}

/** Limits out of the way (every answer should be a real one, not a 429), fast retries. */
export const CHAOS_ENV = {
  // The service never makes its own keys (decision 0063): the run passes them.
  ...TEST_KEYS,
  LIMIT_REQUESTS_PER_MIN: "100000000",
  LIMIT_MESSAGES_PER_MIN: "100000000",
  LIMIT_PER_RECIPIENT_PER_MIN: "100000000",
  LIMIT_DAILY_MESSAGES: "100000000",
  LIMIT_DAILY_PROPOSALS: "100000000",
  LONGPOLL_MAX_PARKED: "100",
  WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
  WEBHOOK_RETRY_SCHEDULE_S: "1,1,2,2,3,3,5",
  WEBHOOK_TIMEOUT_MS: "3000",
  // A SIGKILLed worker's job locks are freed after this (the default is 5 minutes).
  JOB_LOCK_STALE_S: "10",
  LOG_LEVEL: "warn",
};

const KILL_EVERY_MS = 20_000;
/** The harness's own pool (people's sends and decisions through core). */
const HARNESS_POOL = 4;
const SAMPLE_EVERY_MS = 10_000;
const SETTLE_MS = 120_000;

/**
 * The chaos run: two web processes and two workers on one Postgres under a steady mixed load;
 * every 20 s one of them is SIGKILLed (its launcher restarts it), once Postgres restarts. Then
 * everything that was answered or committed is checked against what the clients saw.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { log } = options;
  const random = mulberry32(options.seed);
  const cluster = await startCluster({
    basePort: options.basePort,
    env: CHAOS_ENV,
    output: openSync(options.logFile, "a"),
    log,
    build: options.build,
  });
  const config = loadConfig({ DATABASE_URL: cluster.databaseUrl, ...CHAOS_ENV });
  const { deps, close } = createDeps(config, { poolSize: HARNESS_POOL });
  const ledger = new Ledger();
  const unguardSockets = guardHarnessSockets(ledger);
  const world = new World({
    deps,
    ledger,
    webUrls: cluster.webUrls,
    wsUrls: cluster.wsUrls,
    random,
  });
  const samples: Sample[] = [];
  let sampler: ReturnType<typeof setInterval> | undefined;
  try {
    await world.setUp();
    world.startConsumers();
    const sample = async () => {
      const connections = await cluster.connections().catch(() => -1);
      samples.push({
        atMs: ledger.now(),
        connections,
        rss: Object.fromEntries(
          cluster.processes.map((p) => {
            const pid = p.pid();
            return [p.name, pid === undefined ? 0 : residentBytes(pid)];
          }),
        ),
      });
    };
    await sample();
    sampler = setInterval(() => void sample(), SAMPLE_EVERY_MS);
    const until = ledger.now() + options.durationMs;
    log(
      `chaos: ${options.soak ? "soak" : "chaos"} run for ${options.durationMs / 1000} s (seed ${options.seed})`,
    );
    const meter = new CpuMeter(cluster.processes, cluster.databaseName);
    const sentBefore = world.sent.length;
    meter.start();
    await Promise.all([
      world.drive(until, options.soak ? 0.7 : 1),
      options.soak ? Promise.resolve() : faults(cluster, ledger, until, random, log),
    ]);
    const load = { cpu: meter.stop(), sends: world.sent.length - sentBefore };
    clearInterval(sampler);
    sampler = undefined;
    log("chaos: load over; waiting for deliveries, streams and long-polls to catch up");
    const committed = await settle(world, ledger);
    const checks = await runChecks(world, deps, ledger, committed);
    if (options.soak) {
      const ceiling = connectionCeiling({
        webs: cluster.processes.filter((p) => p.role === "web").length,
        workers: cluster.processes.filter((p) => p.role === "worker").length,
        jobConcurrency: config.JOB_CONCURRENCY,
        harnessPool: HARNESS_POOL,
      });
      checks.push(...soakChecks(samples, ceiling));
    }
    const events = [...committed.values()].reduce((sum, list) => sum + list.length, 0);
    const deliveries = world.agents.reduce((sum, a) => sum + (a.receiver?.arrivals.length ?? 0), 0);
    return {
      ok: checks.every((c) => c.ok),
      checks,
      ledger,
      events,
      deliveries,
      samples,
      world,
      load,
    };
  } finally {
    if (sampler) clearInterval(sampler);
    await world.stop();
    await close();
    await cluster.stop();
    unguardSockets();
  }
}

/** Every 20 s a random process SIGKILLed; once, half-way between two kills, Postgres restarted. */
async function faults(
  cluster: Cluster,
  ledger: Ledger,
  untilMs: number,
  random: () => number,
  log: (line: string) => void,
): Promise<void> {
  const start = ledger.now();
  const span = untilMs - start;
  const postgresAt =
    start + Math.floor(span / 2 / KILL_EVERY_MS) * KILL_EVERY_MS + KILL_EVERY_MS / 2;
  const plan: { atMs: number; what: "kill" | "postgres" }[] = [
    { atMs: postgresAt, what: "postgres" },
  ];
  for (let at = start + KILL_EVERY_MS; at < untilMs - 5000; at += KILL_EVERY_MS)
    plan.push({ atMs: at, what: "kill" });
  plan.sort((a, b) => a.atMs - b.atMs);
  for (const step of plan) {
    await sleep(Math.max(0, step.atMs - ledger.now()));
    if (step.what === "postgres") {
      const fault = ledger.beginFault(`postgres (${cluster.postgres})`);
      const ms = await cluster.restartPostgres();
      ledger.endFault(fault, ms);
      log(`chaos: Postgres restarted at ${fault.atMs} ms; all processes answer after ${ms} ms`);
    } else {
      const target = cluster.processes[Math.floor(random() * cluster.processes.length)];
      if (!target?.pid()) continue;
      const fault = ledger.beginFault(`kill -9 ${target.name}`);
      const ms = await cluster.kill(target);
      ledger.endFault(fault, ms);
      log(`chaos: killed ${target.name} at ${fault.atMs} ms; it answers again after ${ms} ms`);
    }
  }
}

/**
 * Waits until every webhook has the agent's committed events and every stream and long-poll has
 * caught up to its last seq; returns the committed events (read again at the end).
 */
async function settle(world: World, ledger: Ledger): Promise<Map<string, AgentEvent[]>> {
  const deadline = ledger.now() + SETTLE_MS;
  for (;;) {
    const committed = new Map<string, AgentEvent[]>();
    for (const agent of world.agents) committed.set(agent.id, await committedEvents(world, agent));
    const behind = world.agents.filter((agent) => {
      const events = committed.get(agent.id) ?? [];
      const last = events.at(-1)?.seq ?? 0;
      const arrived = new Set(agent.receiver?.arrivals.map((a) => a.id));
      return (
        agent.stream.lastSeq < last ||
        agent.poll.lastSeq < last ||
        (agent.receiver && events.some((e) => !arrived.has(e.id)))
      );
    });
    if (behind.length === 0 || ledger.now() > deadline) return committed;
    await sleep(1000);
  }
}

/** A small seeded generator, so a failing run can be repeated with its seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
