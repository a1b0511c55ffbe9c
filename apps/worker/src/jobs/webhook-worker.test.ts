import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import {
  captureLogs,
  createAgent,
  createUser,
  getWebhook,
  putWebhook,
  resumeWebhook,
} from "@switchboard/core";
import { appendEvents, createTestDeps, TEST_KEYS, taggedEvent } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startJobRunner } from "./runner";

// Real job runners and worker processes over a real database, and real receivers.
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
      ...TEST_KEYS,
      DATABASE_URL: t.config.DATABASE_URL,
      WS_PORT: "0",
      JOB_LOCK_STALE_S: "2",
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
    },
    stdio: "ignore",
  });
}

/** A webhook receiver on a loopback port: its base address, and a way to close it. */
async function startReceiver(handler: RequestListener) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const waitFor = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
};

it("a worker killed (kill -9) mid-load loses no delivery: the next worker delivers every event", async () => {
  const received = new Set<string>();
  const receiver = await startReceiver((req, res) => {
    req.resume();
    req.on("end", () => {
      // Slow enough that the kill lands while deliveries are in flight.
      setTimeout(() => {
        received.add(req.headers["x-svc-event-id"] as string);
        res.end();
      }, 30);
    });
  });
  const workers: ChildProcess[] = [];
  try {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Crashy" });
    const url = `${receiver.base}/in`;
    await putWebhook(t.deps, agent.id, url);
    const committed: string[] = [];
    const emit = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const [event] = await t.deps.db.transaction((tx) =>
          appendEvents(tx, t.clock.now(), [taggedEvent(agent.id, i)]),
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
    // Killed workers leave their heartbeats: gone with them, so the next test's drains do not
    // send a share of their wake-ups to processes that no longer run.
    await t.deps.sql`delete from job_worker_heartbeats`;
    await receiver.close();
  }
}, 120_000);

it("one slow receiver does not hold up other agents' deliveries", async () => {
  const arrived = new Map<string, number>();
  const receiver = await startReceiver((req, res) => {
    req.resume();
    req.on("end", () => {
      const slow = req.url === "/slow";
      if (!slow) arrived.set(req.headers["x-svc-event-id"] as string, Date.now());
      setTimeout(() => res.end(), slow ? 3000 : 0);
    });
  });
  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    const owner = await createUser(t.deps, {});
    const agentFor = async (path: string) => {
      const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: path });
      await putWebhook(t.deps, agent.id, `${receiver.base}${path}`);
      return agent.id;
    };
    const slow = await agentFor("/slow");
    const fast = await agentFor("/fast");
    const emit = async (agentId: string) =>
      (
        await t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agentId)]))
      )[0]?.id as string;
    for (let i = 0; i < 3; i++) await emit(slow); // 9 s of work queued for the slow agent
    await new Promise((r) => setTimeout(r, 200)); // its first delivery is in flight
    const started = Date.now();
    const fastIds = [await emit(fast), await emit(fast)];
    await waitFor(() => fastIds.every((id) => arrived.has(id)), 10_000);
    const took = Math.max(...fastIds.map((id) => (arrived.get(id) ?? Infinity) - started));
    expect(took).toBeLessThan(2500); // well before the slow agent's first answer
  } finally {
    await runner.stop();
    await receiver.close();
  }
}, 60_000);

it("a worker drains WEBHOOK_CONCURRENCY agents at once, whatever JOB_CONCURRENCY is", async () => {
  const limited = await createTestDeps({
    env: {
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      JOB_CONCURRENCY: "1",
      WEBHOOK_CONCURRENCY: "4",
    },
  });
  let inFlight = 0;
  let mostInFlight = 0;
  let answered = 0;
  const receiver = await startReceiver((req, res) => {
    req.resume();
    req.on("end", () => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        answered += 1;
        res.end();
      }, 300);
    });
  });
  const runner = await startJobRunner(limited.deps, limited.config.DATABASE_URL as string);
  try {
    const owner = await createUser(limited.deps, {});
    const agentIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const agent = await createAgent(limited.deps, { ownerId: owner.id, displayName: `A${i}` });
      await putWebhook(limited.deps, agent.id, `${receiver.base}/${agent.id}`);
      agentIds.push(agent.id);
    }
    // One commit wakes all six at once.
    await limited.deps.db.transaction((tx) =>
      appendEvents(
        tx,
        limited.clock.now(),
        agentIds.map((agentId) => taggedEvent(agentId)),
      ),
    );
    await waitFor(() => answered === 6, 10_000);
    expect(answered).toBe(6);
    expect(mostInFlight).toBe(4);
  } finally {
    await runner.stop();
    await receiver.close();
    await limited.close();
  }
}, 60_000);

it("a live worker's long job keeps its lock past JOB_LOCK_STALE_S: it is not taken twice", async () => {
  const slow = await createTestDeps({
    env: {
      WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      JOB_LOCK_STALE_S: "1",
      WEBHOOK_TIMEOUT_MS: "15000",
    },
  });
  let requests = 0;
  let answered = false;
  const receiver = await startReceiver((req, res) => {
    requests++;
    req.resume();
    // A delivery far longer than JOB_LOCK_STALE_S (several sweeps happen meanwhile).
    setTimeout(() => {
      answered = true;
      res.end();
    }, 5000);
  });
  const runner = await startJobRunner(slow.deps, slow.config.DATABASE_URL as string);
  try {
    const owner = await createUser(slow.deps, {});
    const agent = await createAgent(slow.deps, { ownerId: owner.id, displayName: "Patient" });
    await putWebhook(slow.deps, agent.id, `${receiver.base}/in`);
    await slow.deps.db.transaction((tx) =>
      appendEvents(tx, slow.clock.now(), [taggedEvent(agent.id, "slow")]),
    );
    await waitFor(() => answered, 20_000);
    await new Promise((r) => setTimeout(r, 2500)); // a released job would be retried by now
    expect(answered).toBe(true);
    expect(requests).toBe(1);
  } finally {
    await runner.stop();
    await receiver.close();
    await slow.close();
  }
}, 60_000);

it("events committed while the webhook is off arrive after resume, in order; an answer with NUL bytes stalls nothing", async () => {
  const arrived: string[] = [];
  let answer: { status: number; body: string } = { status: 410, body: "" };
  const receiver = await startReceiver((req, res) => {
    req.resume();
    req.on("end", () => {
      arrived.push(req.headers["x-svc-event-id"] as string);
      res.statusCode = answer.status;
      res.end(answer.body);
    });
  });
  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Offline" });
    await putWebhook(t.deps, agent.id, `${receiver.base}/in`);
    const emit = async () =>
      (
        await t.deps.db.transaction((tx) =>
          appendEvents(tx, t.clock.now(), [taggedEvent(agent.id)]),
        )
      )[0]?.id as string;
    const first = await emit(); // answered 410: the webhook is turned off
    await waitFor(() => arrived.length === 1, 10_000);
    // Recorded once the worker has the answer: on a loaded machine, well after it arrived.
    let state: string | undefined;
    for (let deadline = Date.now() + 10_000; state !== "disabled" && Date.now() < deadline; ) {
      state = (await getWebhook(t.deps, agent.id))?.state;
      if (state !== "disabled") await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe("disabled");
    const whileOff = [await emit(), await emit()];
    await waitFor(() => false, 500);
    expect(arrived).toEqual([first]);

    answer = { status: 200, body: "ok\0bye" };
    await resumeWebhook(t.deps, agent.id);
    await waitFor(() => arrived.length === 4, 10_000);
    expect(arrived).toEqual([first, first, ...whileOff]);
    // Every answer so far held a NUL byte: later events are still delivered.
    const later = [await emit(), await emit(), await emit()];
    await waitFor(() => arrived.length === 7, 10_000);
    expect(arrived.slice(4)).toEqual(later);
  } finally {
    await runner.stop();
    await receiver.close();
  }
}, 60_000);

it("a delivered event logs nothing at info; a failed attempt logs its delivery line", async () => {
  let status = 200;
  const receiver = await startReceiver((req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = status;
      res.end();
    });
  });
  const lines: string[] = [];
  const restore = captureLogs(lines);
  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Quiet" });
    const url = `${receiver.base}/in`;
    await putWebhook(t.deps, agent.id, url);
    /** Appends an event and waits until its attempt is settled as `status`. */
    const attempted = async (status: "succeeded" | "pending") => {
      await t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), [taggedEvent(agent.id)]));
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const [last] = await t.deps.sql`
          select status, attempts from webhook_deliveries where agent_id = ${agent.id}
          order by event_seq desc limit 1`;
        if (last?.status === status && last.attempts === 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await attempted("succeeded");
    await new Promise((r) => setTimeout(r, 300)); // its job's line, after the settle
    const delivered = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(delivered.filter((line) => line.msg === "delivery" || line.msg === "job")).toEqual([]);

    status = 500;
    await attempted("pending");
    await new Promise((r) => setTimeout(r, 300));
    const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failed.filter((line) => line.msg === "delivery")).toMatchObject([
      { outcome: "failed", httpStatus: 500 },
    ]);
  } finally {
    restore();
    await runner.stop();
    await receiver.close();
  }
}, 30_000);
