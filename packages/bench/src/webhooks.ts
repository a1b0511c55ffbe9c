import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import {
  appendEvents,
  createAgent,
  createDeps,
  createUser,
  loadConfig,
  putWebhook,
} from "@switchboard/core";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { startJobRunner } from "@switchboard/worker";

/**
 * `npm run bench`, webhook part: a job runner in this process (as the worker runs it), a local
 * receiver on loopback, a real Postgres.
 *  - event committed → its delivery POST arriving at the receiver, p50/p99, one at a time;
 *  - deliveries per second for a burst of events spread over several agents (each agent's
 *    deliveries run in order in its own queue; agents run side by side).
 */
const SAMPLES = 200;
const AGENTS = 10;
const BURST = 1000;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const config = loadConfig({
  DATABASE_URL: database.url,
  WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
});
const { deps, close } = createDeps(config, { poolSize: 6 });
const arrivals = new Map<string, number>();
let onArrival: (() => void) | null = null;
const receiver = createServer((req, res) => {
  arrivals.set(req.headers["x-svc-event-id"] as string, performance.now());
  req.resume();
  req.on("end", () => res.end());
  onArrival?.();
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
const runner = await startJobRunner(deps, database.url);

try {
  const owner = await createUser(deps, {});
  const agents: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const agent = await createAgent(deps, { ownerId: owner.id, displayName: `Bench ${i}` });
    await putWebhook(deps, agent.id, url);
    agents.push(agent.id);
  }
  const emit = async (agentId: string) => {
    const [event] = await deps.db.transaction((tx) =>
      appendEvents(tx, new Date(), [{ agentId, type: "bench.event", payload: {} }]),
    );
    return event?.id as string;
  };
  const arrived = (ids: string[]) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (ids.every((id) => arrivals.has(id))) {
          onArrival = null;
          resolve();
        }
      };
      onArrival = check;
      check();
    });

  const spans: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const id = await emit(agents[0] as string);
    const committed = performance.now();
    await arrived([id]);
    if (i >= 20) spans.push((arrivals.get(id) as number) - committed);
  }
  spans.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((spans[Math.floor(q * (spans.length - 1))] ?? 0) * 100) / 100;

  const started = performance.now();
  const ids = await Promise.all(
    Array.from({ length: BURST }, (_, i) => emit(agents[i % AGENTS] as string)),
  );
  const allCommitted = performance.now();
  await arrived(ids);
  const seconds = (performance.now() - started) / 1000;

  console.log(
    JSON.stringify(
      {
        commitToDelivery: { samples: SAMPLES, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) },
        burst: {
          events: BURST,
          agents: AGENTS,
          commitsPerSecond: Math.round(BURST / ((allCommitted - started) / 1000)),
          deliveriesPerSecond: Math.round(BURST / seconds),
        },
      },
      null,
      2,
    ),
  );
} finally {
  await runner.stop();
  await new Promise((resolve) => receiver.close(resolve));
  await close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
