import { readFileSync } from "node:fs";
import { createAgent, createDeps, createUser, loadConfig, mintAgentToken } from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { WebSocket } from "ws";
import { STREAM_PATH, startWorkerProcess } from "./worker-process";

/**
 * `npm run bench`, memory part on the worker (not in CI): one client that stops reading and
 * floods tiny frames at the stream for FLOOD_S seconds, reconnecting whenever it is dropped. Each
 * frame asks for an answer (an error frame), so a worker that queued one per frame would grow
 * without bound. Run twice: with the shipped frame limit (answered once, then closed), and with
 * the limit raised out of reach (only the send buffer's bound holds). The worker's RSS, sampled
 * every 50 ms, may grow at most MAX_GROWTH_MB over its level right before. Loopback only; exits 1
 * when a case grows more. `--quick`: 10 s per case.
 */
const MAX_GROWTH_MB = 50;
const FLOOD_S = process.argv.includes("--quick") ? 10 : 30;

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;

/** Opens a stream connection, waits for hello, then stops reading from it. */
function openDeaf(port: number, token: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${STREAM_PATH}?token=${token}`);
    ws.once("message", () => {
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      resolve(ws);
    });
    ws.once("error", reject);
  });
}

/** Floods until `until`; answers how many frames went and how often it was dropped. */
async function flood(port: number, token: string, until: number) {
  let frames = 0;
  let drops = 0;
  while (Date.now() < until) {
    const ws = await openDeaf(port, token).catch(() => null);
    if (!ws) {
      await new Promise((resolve) => setTimeout(resolve, 200)); // its slot is being freed
      continue;
    }
    const closed = new Promise((resolve) => ws.once("close", resolve));
    while (ws.readyState === ws.OPEN && Date.now() < until) {
      // Only as fast as the socket takes them: the flood is of frames, not of client memory.
      if (ws.bufferedAmount < 1024 * 1024)
        for (let i = 0; i < 500; i++) {
          ws.send("x");
          frames++;
        }
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (ws.readyState !== ws.CLOSED && Date.now() >= until) ws.terminate();
    else drops++;
    await closed;
  }
  return { frames, drops };
}

const cases: { name: string; env: Record<string, string> }[] = [
  { name: "shipped frame limit", env: {} },
  { name: "frame limit out of reach", env: { STREAM_FRAMES_PER_MIN: "100000000" } },
];

const dbServer = await startTestDatabaseServer();
const database = await createTestDatabase(dbServer);
const { deps, close } = createDeps(loadConfig({ ...TEST_KEYS, DATABASE_URL: database.url }), {
  poolSize: 2,
});
let failed = false;
try {
  const owner = await createUser(deps, {});
  const agent = await createAgent(deps, { ownerId: owner.id, displayName: "Flooder" });
  const { token } = await mintAgentToken(deps, agent.id);
  const rows: string[] = [];
  for (const item of cases) {
    const worker = await startWorkerProcess({ DATABASE_URL: database.url, ...item.env });
    try {
      // Warm up: one connection through hello, so what is measured is the flood.
      (await openDeaf(worker.port, token)).terminate();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = rss(worker.pid);
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, rss(worker.pid));
      }, 50);
      const { frames, drops } = await flood(worker.port, token, Date.now() + FLOOD_S * 1000);
      clearInterval(sampler);
      peak = Math.max(peak, rss(worker.pid));
      const growth = (peak - before) / 1024 / 1024;
      const ok = growth < MAX_GROWTH_MB;
      failed ||= !ok;
      rows.push(
        `| ${item.name} | ${FLOOD_S} | ${frames} | ${drops} | ${Math.round(before / 1024 / 1024)} | ${Math.round(peak / 1024 / 1024)} | ${growth.toFixed(1)} | ${ok ? "ok" : "OVER"} |`,
      );
    } finally {
      await worker.stop();
    }
  }
  console.log(
    [
      `Worker memory under a non-reading WebSocket flood (RSS; limit +${MAX_GROWTH_MB} MB)`,
      "",
      "| case | s | frames sent | dropped | before MB | peak MB | growth MB | |",
      "|---|---|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
} finally {
  await close();
  await dropDatabase(dbServer.adminUrl, database.name);
  await dbServer.stop();
}
if (failed) process.exit(1);
