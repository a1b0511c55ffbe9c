import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import type {} from "vitest";
import { startEmbeddedPostgres } from "./embedded";
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

async function admin<T>(url: string, run: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await run(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
