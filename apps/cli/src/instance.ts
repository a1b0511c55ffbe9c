import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, found from this file so commands work from any directory. */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
/** Local state of `npm start`: embedded Postgres data and the running instance's address. */
export const dataDir = process.env.SWITCHBOARD_DATA_DIR ?? path.join(repoRoot, ".data");
const instanceFile = () => path.join(dataDir, "instance.json");

/** What a running `npm start` publishes so the CLI needs no configuration. */
export interface InstanceInfo {
  pid: number;
  databaseUrl: string;
  webUrl: string;
  wsUrl: string;
  startedAt: string;
}

export function writeInstance(info: InstanceInfo): void {
  writeFileSync(instanceFile(), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function clearInstance(pid: number): void {
  if (readInstance()?.pid === pid) rmSync(instanceFile(), { force: true });
}

/** The running instance, or null when none is (a stale file from a killed run is ignored). */
export function readInstance(): InstanceInfo | null {
  if (!existsSync(instanceFile())) return null;
  try {
    const info = JSON.parse(readFileSync(instanceFile(), "utf8")) as InstanceInfo;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}

/**
 * No running instance where the CLI looked: it answers `instance_not_found`, with the data
 * directory it looked in and how to point it elsewhere, never as an internal error.
 */
export class InstanceNotFoundError extends Error {}

/** Where the CLI looked, and how to make it look elsewhere: said by every such error. */
export const whereLooked = () =>
  `looked in the data directory ${dataDir}; set SWITCHBOARD_DATA_DIR to the one \`npm start\` runs with (or DATABASE_URL, AUTH_SECRET and SECRETS_KEY to the instance's)`;

/** DATABASE_URL when set, else the database of the running `npm start`. */
export function resolveDatabaseUrl(): string {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return fromEnv;
  const running = readInstance();
  if (running) return running.databaseUrl;
  throw new InstanceNotFoundError(
    `No running Switchboard found: start it with \`npm start\`; ${whereLooked()}`,
  );
}
