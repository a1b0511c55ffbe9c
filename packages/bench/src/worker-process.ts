import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import path from "node:path";
import { TEST_KEYS } from "@switchboard/core/testing";

/** The stream's address on a worker (the spec's path). */
export const STREAM_PATH = "/ws/agent/v1/stream";

const workerMain = path.resolve(import.meta.dirname, "../../../apps/worker/src/main.ts");

/**
 * Runs the real worker as its own process (as `npm start` does), on a free port, with `env` as
 * its whole configuration: the benchmarks measure the process that ships, over real sockets, and
 * do not import the worker's code.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  // BENCH_CPU_PROF_DIR=dir: the worker writes a V8 CPU profile there when it stops.
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", workerMain], {
    cwd: path.dirname(workerMain),
    env: { ...TEST_KEYS, ...env, WS_PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    await healthy(child, port);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    port,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/** Waits (up to 60 s) until the worker's /healthz answers 200. */
async function healthy(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the worker exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the worker did not become healthy within 60 s");
}
