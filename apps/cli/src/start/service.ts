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
}

export interface RunningService {
  webUrl: string;
  wsUrl: string;
  /** Resolves when either process exits on its own (which means the service is down). */
  exited: Promise<{ name: string; code: number | null }>;
  stop(): Promise<void>;
}

/** Starts the web and worker processes against a migrated database and waits until both are healthy. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
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
  const children: Record<string, ChildProcess> = {
    web: spawn(
      process.execPath,
      [nextBin(), options.dev ? "dev" : "start", "-p", String(options.port)],
      {
        cwd: path.join(repoRoot, "apps/web"),
        env,
        stdio: ["ignore", output, output],
      },
    ),
    worker: spawn(
      process.execPath,
      ["--import", "tsx", path.join(repoRoot, "apps/worker/src/main.ts")],
      {
        cwd: repoRoot,
        env,
        stdio: ["ignore", output, output],
      },
    ),
  };
  let stopping = false;
  const exited = new Promise<{ name: string; code: number | null }>((resolve) => {
    for (const [name, child] of Object.entries(children))
      child.once("exit", (code) => {
        if (!stopping) resolve({ name, code });
      });
  });

  const stop = async () => {
    stopping = true;
    await Promise.all(Object.values(children).map((child) => stopChild(child)));
  };

  const webUrl = `http://localhost:${options.port}`;
  try {
    await Promise.race([
      Promise.all([
        waitHealthy(`http://127.0.0.1:${options.port}/api/healthz`),
        waitHealthy(`http://127.0.0.1:${options.wsPort}/healthz`),
      ]),
      exited.then(({ name, code }) => {
        throw new Error(`the ${name} process exited during start-up (code ${code})`);
      }),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { webUrl, wsUrl: `ws://localhost:${options.wsPort}`, exited, stop };
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
