import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureWebBuild } from "@switchboard/cli/build";
import { type RunningService, startService } from "@switchboard/cli/service";
import { withDatabase } from "@switchboard/db";
import type { EmbeddedServer } from "@switchboard/db/embedded";
import { migrateDatabase } from "@switchboard/db/migrate";
import { admin } from "@switchboard/db/testing";

/** One of the four service processes the chaos run keeps alive. */
export interface ServiceProcess {
  name: string;
  role: "web" | "worker";
  /** Where the process answers when it is up (web: `/api/healthz`, worker: `/healthz`). */
  healthUrl: string;
  pid(): number | undefined;
}

export interface Cluster {
  databaseUrl: string;
  databaseName: string;
  /** `embedded`: stop/start of the run's own Postgres; `server`: its backends terminated. */
  postgres: "embedded" | "server";
  webUrls: string[];
  wsUrls: string[];
  processes: ServiceProcess[];
  /** SIGKILLs the process; the launcher restarts it. Resolves with ms until it answers again. */
  kill(process: ServiceProcess): Promise<number>;
  /** Restarts Postgres as the run's processes see it; resolves with ms until all four answer. */
  restartPostgres(): Promise<number>;
  /** Connections to the run's database now (pg_stat_activity). */
  connections(): Promise<number>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** First of four consecutive ports (web, ws, web, ws); free ports when absent. */
  basePort?: number;
  /** Settings for every service process. */
  env: Record<string, string>;
  /** File descriptor the service processes write to. */
  output: number;
  log: (line: string) => void;
  /** False: serve the web build as it is, even if sources changed since (`--no-build`). */
  build?: boolean;
}

/**
 * Two web processes and two workers (two launchers, as `npm start` runs them) on one fresh
 * database: on DATABASE_URL's server when set (a restart there terminates every backend of the
 * run's database), else on a Postgres of the run's own (a restart stops and starts it).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const database = await startDatabase(options.log);
  const services: RunningService[] = [];
  try {
    if (options.build !== false) ensureWebBuild(options.log);
    const ports = options.basePort
      ? [0, 1, 2, 3].map((i) => (options.basePort as number) + i)
      : await Promise.all([0, 1, 2, 3].map(() => freePort()));
    for (const pair of [0, 1]) {
      services.push(
        await startService({
          databaseUrl: database.url,
          port: ports[pair * 2] as number,
          wsPort: ports[pair * 2 + 1] as number,
          env: options.env,
          output: options.output,
          log: options.log,
        }),
      );
    }
    const processes: ServiceProcess[] = services.flatMap((service, i) => [
      {
        name: `web${i + 1}`,
        role: "web" as const,
        healthUrl: `http://127.0.0.1:${ports[i * 2]}/api/healthz`,
        pid: () => service.pids().web,
      },
      {
        name: `worker${i + 1}`,
        role: "worker" as const,
        healthUrl: `http://127.0.0.1:${ports[i * 2 + 1]}/healthz`,
        pid: () => service.pids().worker,
      },
    ]);
    // A harness that dies without stopping leaves no service processes behind.
    process.once("exit", () => {
      for (const p of processes) {
        const pid = p.pid();
        if (pid) process.kill(pid, "SIGKILL");
      }
    });
    const allUp = () => Promise.all(processes.map((p) => waitUp(p.healthUrl)));
    return {
      databaseUrl: database.url,
      databaseName: database.name,
      postgres: database.kind,
      webUrls: ports.filter((_, i) => i % 2 === 0).map((port) => `http://127.0.0.1:${port}`),
      wsUrls: ports.filter((_, i) => i % 2 === 1).map((port) => `ws://127.0.0.1:${port}`),
      processes,
      async kill(target) {
        const pid = target.pid();
        if (pid === undefined) throw new Error(`${target.name} is not running`);
        const started = performance.now();
        process.kill(pid, "SIGKILL");
        // Down first (the old process may answer for a moment), then up again.
        while (await isUp(target.healthUrl)) await sleep(50);
        await waitUp(target.healthUrl);
        return Math.round(performance.now() - started);
      },
      async restartPostgres() {
        const started = performance.now();
        await database.restart();
        await allUp();
        return Math.round(performance.now() - started);
      },
      connections: database.connections,
      async stop() {
        await Promise.all(services.map((service) => service.stop()));
        await database.stop();
      },
    };
  } catch (error) {
    await Promise.all(services.map((service) => service.stop()));
    await database.stop();
    throw error;
  }
}

interface Database {
  kind: "embedded" | "server";
  url: string;
  name: string;
  restart(): Promise<void>;
  connections(): Promise<number>;
  stop(): Promise<void>;
}

async function startDatabase(log: (line: string) => void): Promise<Database> {
  const name = `sb_chaos_${randomBytes(5).toString("hex")}`;
  // biome-ignore lint/style/noProcessEnv: the chaos run picks its Postgres like the tests do.
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    await admin(serverUrl, (sql) => sql.unsafe(`create database ${name}`));
    const url = withDatabase(serverUrl, name);
    await migrateDatabase(url);
    return {
      kind: "server",
      url,
      name,
      restart: () =>
        admin(serverUrl, async (sql) => {
          await sql`select pg_terminate_backend(pid) from pg_stat_activity
                    where datname = ${name} and pid <> pg_backend_pid()`;
        }),
      connections: () => countConnections(serverUrl, name),
      stop: async () => {
        await admin(serverUrl, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`));
      },
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "switchboard-chaos-pg-"));
  chmodSync(dir, 0o755); // Postgres runs as its own user when we are root
  const { startEmbeddedPostgres } = await import("@switchboard/db/embedded");
  const port = await freePort();
  const dataDir = path.join(dir, "data");
  let server: EmbeddedServer = await startEmbeddedPostgres({ dir: dataDir, port });
  const url = await server.databaseUrl(name);
  await migrateDatabase(url);
  log(`chaos: embedded Postgres on port ${port}`);
  return {
    kind: "embedded",
    url,
    name,
    restart: async () => {
      await server.stop();
      server = await startEmbeddedPostgres({ dir: dataDir, port });
    },
    connections: () => countConnections(server.url, name),
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function countConnections(adminUrl: string, name: string): Promise<number> {
  return admin(adminUrl, async (sql) => {
    const [row] = await sql`select count(*)::int as n from pg_stat_activity
                            where datname = ${name} and pid <> pg_backend_pid()`;
    return (row?.n as number) ?? 0;
  });
}

async function isUp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

async function waitUp(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isUp(url))) {
    if (Date.now() > deadline) throw new Error(`${url} did not come back in ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resident memory (bytes) of a process and every process under it, from /proc. */
export function residentBytes(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.pop() as number;
    try {
      const status = readFileSync(`/proc/${current}/status`, "utf8");
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile
    }
    queue.push(...(children.get(current) ?? []));
  }
  return total;
}
