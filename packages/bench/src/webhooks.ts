import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { eventExamples } from "@switchboard/contract";
import { createAgent, createDeps, createUser, loadConfig, putWebhook } from "@switchboard/core";
import { appendEvents, TEST_KEYS } from "@switchboard/core/testing";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { cpuSnapshot, cpuSpent } from "./process-cpu";
import { startWorkerProcess } from "./worker-process";

/**
 * `npm run bench`, webhook part: a worker process (its webhook drains deliver), a local receiver on
 * loopback, a real Postgres.
 *  - event committed → its delivery POST arriving at the receiver, p50/p99, one at a time;
 *  - deliveries per second for a burst of events spread over 100 agents, committed in batches
 *    (one event per agent per transaction), at WEBHOOK_CONCURRENCY 10 and 50 (the default); each
 *    agent's deliveries must arrive in seq order (one drain per agent at a time), and
 *    commit → arrival p50/p99 of the burst's events (that latency under load), each on a worker
 *    that has just delivered one event per agent;
 *  - commit → arrival p50/p99 at a steady 500 and 1,000 events/s over the 100 agents, after
 *    the fresh worker's first 3 s at that rate (reported apart as its cold start).
 * Each load phase also reports the CPU it cost per delivery (from /proc): the worker process's,
 * and that of this database's Postgres backends (which includes the bench's own commits).
 * `--phases=steady500,burst10` runs only the phases named (one, burst10, burst50, steady500,
 * steady1000); `--steady-seconds=N` paces the steady phases for N seconds (3).
 */
const phases = process.argv
  .find((arg) => arg.startsWith("--phases="))
  ?.slice("--phases=".length)
  .split(",");
const runs = (phase: string) => !phases || phases.includes(phase);
const STEADY_SECONDS = Number(
  process.argv.find((arg) => arg.startsWith("--steady-seconds="))?.slice(17) ?? 3,
);
/** The steady phases' cold start, measured apart before the steady state. */
const WARMUP_SECONDS = 3;
const SAMPLES = 200;
const AGENTS = 100;
const BURST = 3000;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const settings = {
  ...TEST_KEYS,
  DATABASE_URL: database.url,
  WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
};
const config = loadConfig(settings);
const { deps, close } = createDeps(config, { poolSize: 6 });
const arrivals = new Map<string, number>();
let onArrival: ((id: string) => void) | null = null;
const receiver = createServer((req, res) => {
  const id = req.headers["x-svc-event-id"] as string;
  arrivals.set(id, performance.now());
  req.resume();
  req.on("end", () => res.end());
  onArrival?.(id);
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
let worker = await startWorkerProcess(settings);

try {
  const owner = await createUser(deps, {});
  const agents: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const agent = await createAgent(deps, { ownerId: owner.id, displayName: `Bench ${i}` });
    await putWebhook(deps, agent.id, url);
    agents.push(agent.id);
  }
  const event = (agentId: string) => ({
    agentId,
    type: "contact.added" as const,
    payload: eventExamples["contact.added"],
  });
  /** Resolves when every one of `ids` has arrived (counted as they come: the burst is large). */
  const arrived = (ids: string[]) =>
    new Promise<void>((resolve) => {
      const left = new Set(ids.filter((id) => !arrivals.has(id)));
      const done = () => {
        onArrival = null;
        resolve();
      };
      if (left.size === 0) return done();
      onArrival = (id) => {
        left.delete(id);
        if (left.size === 0) done();
      };
    });

  /**
   * CPU ms per delivery while `load` ran: the worker process's, and that of the Postgres
   * backends serving this database (the worker's, and the bench's commits; not other databases
   * on a shared server).
   */
  const cpuPerDelivery = async <T extends { deliveries: number }>(load: () => Promise<T>) => {
    const roots = () => ({ worker: worker.pid });
    const before = cpuSnapshot(roots());
    const result = await load();
    const after = cpuSnapshot(roots());
    const backends = await deps.sql<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = current_database()`;
    let postgres = 0;
    for (const { pid } of backends)
      postgres += (after.postgres.get(pid) ?? 0) - (before.postgres.get(pid) ?? 0);
    const perDelivery = (ms: number) => Math.round((ms / result.deliveries) * 1000) / 1000;
    return {
      ...result,
      cpuMsPerDelivery: {
        worker: perDelivery(cpuSpent(before, after).worker ?? 0),
        postgres: perDelivery(postgres),
      },
    };
  };

  const spans: number[] = [];
  for (let i = 0; i < (runs("one") ? SAMPLES + 20 : 0); i++) {
    const [stored] = await deps.db.transaction((tx) =>
      appendEvents(tx, new Date(), [event(agents[0] as string)]),
    );
    const committed = performance.now();
    await arrived([stored?.id as string]);
    if (i >= 20) spans.push((arrivals.get(stored?.id as string) as number) - committed);
  }
  spans.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((spans[Math.floor(q * (spans.length - 1))] ?? 0) * 100) / 100;

  /**
   * BURST events over every agent, one per agent per transaction; deliveries/s and order. The
   * fresh worker first delivers one event per agent (not counted), as a running service would
   * have: its code compiled and the agents' leases held.
   */
  const burst = async (concurrency: number) => {
    await worker.stop();
    worker = await startWorkerProcess({ ...settings, WEBHOOK_CONCURRENCY: String(concurrency) });
    await burstLoad(concurrency, AGENTS);
    return cpuPerDelivery(() => burstLoad(concurrency, BURST));
  };
  const burstLoad = async (concurrency: number, events: number) => {
    const started = performance.now();
    const stored: { id: string; agentId: string; seq: number }[] = [];
    const committedAt = new Map<string, number>();
    for (let round = 0; round < events / AGENTS; round++) {
      const batch = await deps.db.transaction((tx) =>
        appendEvents(tx, new Date(), agents.map(event)),
      );
      const now = performance.now();
      for (const e of batch) committedAt.set(e.id, now);
      stored.push(...batch);
    }
    const committedSeconds = (performance.now() - started) / 1000;
    await arrived(stored.map((e) => e.id));
    const seconds = (performance.now() - started) / 1000;
    const outOfOrder = agents.filter((agentId) => {
      const seqs = stored
        .filter((e) => e.agentId === agentId)
        .sort((a, b) => (arrivals.get(a.id) as number) - (arrivals.get(b.id) as number))
        .map((e) => e.seq);
      return seqs.some((seq, i) => i > 0 && seq < (seqs[i - 1] as number));
    }).length;
    const lags = stored
      .map((e) => (arrivals.get(e.id) as number) - (committedAt.get(e.id) as number))
      .sort((a, b) => a - b);
    const lag = (q: number) => Math.round((lags[Math.floor(q * (lags.length - 1))] ?? 0) * 10) / 10;
    return {
      concurrency,
      deliveries: events,
      agents: AGENTS,
      committedInSeconds: Math.round(committedSeconds * 100) / 100,
      deliveriesPerSecond: Math.round(events / seconds),
      agentsOutOfOrder: outOfOrder,
      commitToDeliveryUnderLoad: { p50Ms: lag(0.5), p99Ms: lag(0.99) },
    };
  };
  const bursts = [];
  for (const concurrency of [10, 50])
    if (runs(`burst${concurrency}`)) bursts.push(await burst(concurrency));

  /**
   * A steady load instead of a burst: every 10 ms one transaction of events for `perTick`
   * agents in turn, for STEADY_SECONDS; commit → arrival p50/p99 at that rate (WEBHOOK_CONCURRENCY
   * 50, the default). The phase starts a fresh worker, which compiles its code as it first runs it and
   * holds no lease yet: its first WARMUP_SECONDS at the same rate are reported apart
   * (`coldStart`), and the steady state is measured after them.
   */
  const paced = async (perSecond: number) => {
    await worker.stop();
    worker = await startWorkerProcess(settings);
    const coldStart = await pacedLoad(perSecond, WARMUP_SECONDS);
    return {
      ...(await cpuPerDelivery(() => pacedLoad(perSecond, STEADY_SECONDS))),
      coldStart: coldStart.commitToDelivery,
    };
  };
  const pacedLoad = async (perSecond: number, seconds: number) => {
    const perTick = perSecond / 100;
    const committedAt = new Map<string, number>();
    const started = performance.now();
    for (let tick = 0; tick < seconds * 100; tick++) {
      const wait = started + tick * 10 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const batch = await deps.db.transaction((tx) =>
        appendEvents(
          tx,
          new Date(),
          Array.from({ length: perTick }, (_, i) =>
            event(agents[(tick * perTick + i) % AGENTS] as string),
          ),
        ),
      );
      const now = performance.now();
      for (const e of batch) committedAt.set(e.id, now);
    }
    const offeredSeconds = (performance.now() - started) / 1000;
    await arrived([...committedAt.keys()]);
    const deliveredSeconds = (performance.now() - started) / 1000;
    const lags = [...committedAt]
      .map(([id, at]) => (arrivals.get(id) as number) - at)
      .sort((a, b) => a - b);
    const lag = (q: number) => Math.round((lags[Math.floor(q * (lags.length - 1))] ?? 0) * 10) / 10;
    return {
      deliveries: committedAt.size,
      offeredPerSecond: Math.round(committedAt.size / offeredSeconds),
      deliveredPerSecond: Math.round(committedAt.size / deliveredSeconds),
      commitToDelivery: { p50Ms: lag(0.5), p99Ms: lag(0.99) },
    };
  };
  const steady = [];
  for (const perSecond of [500, 1000])
    if (runs(`steady${perSecond}`)) steady.push(await paced(perSecond));

  console.log(
    JSON.stringify(
      {
        ...(runs("one") && {
          commitToDelivery: { samples: SAMPLES, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) },
        }),
        bursts,
        steady,
      },
      null,
      2,
    ),
  );
} finally {
  await worker.stop();
  await new Promise((resolve) => receiver.close(resolve));
  await close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
