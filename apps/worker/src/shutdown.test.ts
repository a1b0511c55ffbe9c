import type { ChildProcess } from "node:child_process";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connect, newStreamAgent } from "./stream/test-client";
import { startWorkerProcess } from "./test-process";

/** A real worker process (as `npm run start:worker` runs it) stopped with SIGTERM, as a deploy does. */

let t: Awaited<ReturnType<typeof createTestDeps>>;
let worker: ChildProcess | undefined;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(async () => {
  worker?.kill("SIGKILL");
  await t.close();
});

it("on SIGTERM closes streams with 1001 so agents reconnect elsewhere, and exits 0", async () => {
  const started = await startWorkerProcess({
    DATABASE_URL: t.config.DATABASE_URL as string,
    SHUTDOWN_TIMEOUT_MS: "8000",
  });
  worker = started.child;
  const { token } = await newStreamAgent(t.deps);
  const client = connect(`ws://127.0.0.1:${started.port}/ws/agent/v1/stream?token=${token}`);
  await client.opened;
  await client.until(1); // hello

  const exited = new Promise<number | null>((resolve) => worker?.once("exit", resolve));
  const signalled = Date.now();
  worker.kill("SIGTERM");
  expect(await client.closed).toEqual({ code: 1001, reason: "server_shutdown" });
  expect(await exited).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(8000);
}, 60_000);
