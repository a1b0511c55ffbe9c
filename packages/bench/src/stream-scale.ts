import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { eventExamples } from "@switchboard/contract";
import { createAgent, createDeps, createUser, loadConfig, mintAgentToken } from "@switchboard/core";
import { appendEvents, TEST_KEYS } from "@switchboard/core/testing";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { WebSocket } from "ws";
import { STREAM_PATH, startWorkerProcess } from "./worker-process";

/**
 * `npm run bench`, stream at scale: one worker process holding 1,000 agent connections (one per
 * agent) on loopback. Reports the worker's resident memory before and with them, and event
 * commit → `event` frame for one of them while all are connected. `--quick`: 200 connections.
 */
const quick = process.argv.includes("--quick");
const CONNECTIONS = quick ? 200 : 1000;
const SAMPLES = 200;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const settings = { ...TEST_KEYS, DATABASE_URL: database.url };
const { deps, close } = createDeps(loadConfig(settings), { poolSize: 8 });
const worker = await startWorkerProcess(settings);
const rssMb = () => {
  const line = readFileSync(`/proc/${worker.pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Math.round(Number(line?.[1] ?? 0) / 1024);
};

const sockets: WebSocket[] = [];
try {
  const owner = await createUser(deps, {});
  const agents: { id: string; token: string }[] = [];
  for (let i = 0; i < CONNECTIONS; i += 50)
    agents.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, CONNECTIONS - i) }, async (_, j) => {
          const agent = await createAgent(deps, { ownerId: owner.id, displayName: `S${i + j}` });
          return { id: agent.id, token: (await mintAgentToken(deps, agent.id)).token };
        }),
      )),
    );
  const idleRss = rssMb();

  // Connect in batches, each connection answered with its hello.
  const frames = new Map<WebSocket, (frame: { type: string; event?: { seq: number } }) => void>();
  const open = (token: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${worker.port}${STREAM_PATH}?token=${token}`);
      ws.on("message", (data) => {
        const frame = JSON.parse(data.toString());
        if (frame.type === "hello") resolve(ws);
        frames.get(ws)?.(frame);
      });
      ws.once("error", reject);
    });
  const started = performance.now();
  for (let i = 0; i < agents.length; i += 50)
    sockets.push(...(await Promise.all(agents.slice(i, i + 50).map((a) => open(a.token)))));
  const connectSeconds = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2000)); // settle
  const connectedRss = rssMb();

  const watched = sockets[0] as WebSocket;
  const target = agents[0] as { id: string };
  // When each of its event frames arrived: one can arrive before its commit's answer reaches us.
  const arrivals = new Map<number, number>();
  let arrived: (() => void) | undefined;
  frames.set(watched, (frame) => {
    if (frame.type !== "event" || !frame.event) return;
    arrivals.set(frame.event.seq, performance.now());
    arrived?.();
  });
  const spans: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const [event] = await deps.db.transaction((tx) =>
      appendEvents(tx, new Date(), [
        { agentId: target.id, type: "contact.added", payload: eventExamples["contact.added"] },
      ]),
    );
    const committed = performance.now();
    const seq = event?.seq as number;
    while (!arrivals.has(seq)) await new Promise<void>((resolve) => (arrived = resolve));
    // A frame that came before the commit's answer counts as no wait at all.
    if (i >= 20) spans.push(Math.max(0, (arrivals.get(seq) as number) - committed));
  }
  spans.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((spans[Math.floor(q * (spans.length - 1))] ?? 0) * 100) / 100;
  console.log(
    JSON.stringify(
      {
        connections: sockets.length,
        connectSeconds: Math.round(connectSeconds * 10) / 10,
        workerRssMb: { before: idleRss, connected: connectedRss },
        eventCommitToFrameWithAllConnected: {
          samples: spans.length,
          p50Ms: at(0.5),
          p99Ms: at(0.99),
          maxMs: at(1),
        },
      },
      null,
      2,
    ),
  );
} finally {
  for (const ws of sockets) ws.terminate();
  await worker.stop();
  await close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
