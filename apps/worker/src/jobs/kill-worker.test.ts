import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { appendEvents, createAgent, createUser, putWebhook } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

// Real worker processes over a real database, and a real receiver: the crash test of delivery.
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
});
afterAll(() => t.close());

function startWorker(): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: {
      ...process.env,
      DATABASE_URL: t.config.DATABASE_URL,
      WS_PORT: "0",
      JOB_LOCK_STALE_S: "2",
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
    },
    stdio: "ignore",
  });
}

const waitFor = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
};

it("a worker killed (kill -9) mid-load loses no delivery: the next worker delivers every event", async () => {
  const received = new Set<string>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      // Slow enough that the kill lands while deliveries are in flight.
      setTimeout(() => {
        received.add(req.headers["x-svc-event-id"] as string);
        res.end();
      }, 30);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const workers: ChildProcess[] = [];
  try {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Crashy" });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    await putWebhook(t.deps, agent.id, url);
    const committed: string[] = [];
    const emit = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const [event] = await t.deps.db.transaction((tx) =>
          appendEvents(tx, t.clock.now(), [
            { agentId: agent.id, type: "load.event", payload: { i } },
          ]),
        );
        committed.push(event?.id as string);
      }
    };

    workers.push(startWorker());
    await emit(60);
    await waitFor(() => received.size >= 10, 30_000);
    expect(received.size).toBeGreaterThanOrEqual(10);
    expect(received.size).toBeLessThan(60);
    workers[0]?.kill("SIGKILL");
    await emit(20); // committed while no worker runs

    workers.push(startWorker());
    await waitFor(() => committed.every((id) => received.has(id)), 60_000);
    expect(committed.filter((id) => !received.has(id))).toEqual([]);
  } finally {
    for (const worker of workers) worker.kill("SIGKILL");
    await new Promise((resolve) => receiver.close(resolve));
  }
}, 120_000);
