import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "../instance";
import { nextBin } from "./build";

export interface ServiceOptions {
  databaseUrl: string;
  port: number;
  wsPort: number;
  /** `next dev` instead of the production server. */
  dev?: boolean;
  /** Extra environment for both processes (tests pass limit overrides here). */
  env?: Record<string, string>;
  /** Where child output goes: this process's stdout/stderr (default), nowhere, or a file descriptor. */
  output?: "inherit" | "ignore" | number;
  /** Where restarts are reported (default: stderr). */
  log?: (line: string) => void;
  /** Node flags for both processes (benchmarks pass `--cpu-prof` here). */
  nodeArgs?: string[];
}

export interface RunningService {
  webUrl: string;
  wsUrl: string;
  /** The current process id of each child (a restarted child has a new one). */
  pids(): { web: number | undefined; worker: number | undefined };
  /** Stops both processes (and any pending restart). */
  stop(): Promise<void>;
}

/** Both children stop when this process is gone, even SIGKILLed (exit-with-launcher.mjs). */
const exitWithLauncher = [
  "--import",
  path.join(repoRoot, "apps/cli/src/start/exit-with-launcher.mjs"),
];

/** A crashed child is started again after 1 s, doubling up to 30 s; a minute up resets it. */
export const RESTART_POLICY = { firstDelayMs: 1000, maxDelayMs: 30_000, healthyAfterMs: 60_000 };

/**
 * Starts the web and worker processes against a migrated database and waits until both are
 * healthy. From then on a process that dies is restarted (with backoff) while the other keeps
 * serving; only `stop` ends them.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  // The processes never make their own keys (decision 0063); whoever starts them passes them.
  const missing = ["AUTH_SECRET", "SECRETS_KEY", "VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"].filter(
    (name) => !options.env?.[name] && !process.env[name],
  );
  if (missing.length > 0)
    throw new Error(`the service needs ${missing.join(" and ")} (pass them in its env)`);
  const env = {
    ...process.env,
    ...options.env,
    DATABASE_URL: options.databaseUrl,
    PORT: String(options.port),
    WS_PORT: String(options.wsPort),
    NEXT_TELEMETRY_DISABLED: "1",
    // Console sign-in works on whatever host and port the service is reached at, unless the
    // operator pins the public URL with NEXTAUTH_URL.
    ...(!process.env.NEXTAUTH_URL && { AUTH_TRUST_HOST: "true" }),
  };
  const output = options.output ?? "inherit";
  const nodeArgs = options.nodeArgs ?? [];
  const log = options.log ?? ((line: string) => console.error(line));
  const children = {
    web: supervise("web", log, () =>
      spawn(
        process.execPath,
        [
          ...nodeArgs,
          ...exitWithLauncher,
          // Requests no route can answer still get the envelope (apps/web/http-edge.mjs).
          "--import",
          path.join(repoRoot, "apps/web/http-edge.mjs"),
          nextBin(),
          options.dev ? "dev" : "start",
          "-p",
          String(options.port),
        ],
        {
          cwd: path.join(repoRoot, "apps/web"),
          env,
          stdio: ["ignore", output, output],
        },
      ),
    ),
    worker: supervise("worker", log, () =>
      spawn(
        process.execPath,
        [
          ...nodeArgs,
          ...exitWithLauncher,
          "--import",
          "tsx",
          path.join(repoRoot, "apps/worker/src/main.ts"),
        ],
        {
          cwd: repoRoot,
          env,
          stdio: ["ignore", output, output],
        },
      ),
    ),
  };
  const stop = async () => {
    await Promise.all(Object.values(children).map((child) => child.stop()));
  };

  const webUrl = `http://localhost:${options.port}`;
  try {
    await Promise.race([
      Promise.all([
        waitHealthy(`http://127.0.0.1:${options.port}/api/healthz`),
        waitHealthy(`http://127.0.0.1:${options.wsPort}/healthz`),
      ]),
      children.web.exitedEarly,
      children.worker.exitedEarly,
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  for (const child of Object.values(children)) child.restartOnExit();
  return {
    webUrl,
    wsUrl: `ws://localhost:${options.wsPort}`,
    pids: () => ({ web: children.web.pid(), worker: children.worker.pid() }),
    stop,
  };
}

/**
 * One child process kept running: until `restartOnExit` an exit fails the start
 * (`exitedEarly`); after it, an exit is followed by a new process after the backoff delay.
 */
function supervise(name: string, log: (line: string) => void, spawnChild: () => ChildProcess) {
  let child = spawnChild();
  let startedAt = Date.now();
  let delayMs = RESTART_POLICY.firstDelayMs;
  let restarting = false;
  let stopping = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failStart: (error: Error) => void = () => {};
  const exitedEarly = new Promise<never>((_, reject) => {
    failStart = reject;
  });
  exitedEarly.catch(() => {}); // only awaited during start-up

  const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
    if (stopping) return;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!restarting) {
      failStart(new Error(`the ${name} process exited during start-up (${how})`));
      return;
    }
    if (Date.now() - startedAt >= RESTART_POLICY.healthyAfterMs)
      delayMs = RESTART_POLICY.firstDelayMs;
    log(`switchboard: the ${name} process exited (${how}); restarting it in ${delayMs / 1000} s`);
    timer = setTimeout(() => {
      timer = undefined;
      if (stopping) return;
      child = spawnChild();
      startedAt = Date.now();
      child.once("exit", onExit);
    }, delayMs);
    delayMs = Math.min(delayMs * 2, RESTART_POLICY.maxDelayMs);
  };
  child.once("exit", onExit);

  return {
    exitedEarly,
    restartOnExit() {
      restarting = true;
    },
    pid: () => (child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await stopChild(child);
    },
  };
}

async function waitHealthy(url: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not become healthy in ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
