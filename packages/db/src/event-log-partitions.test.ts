import { randomBytes } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { migrationsFolder } from "./migrate";
import { admin, dropDatabase } from "./testing";
import { withDatabase } from "./url";

/**
 * Migration 0019 over a log written before it: the rows move into the partitioned table whole,
 * seq goes on from where it was, and an insert no partition covers still lands.
 */

/** The migrations folder as it was before 0019 (journal and files up to 0018). */
function folderUpTo(lastIdx: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), "sb-migrations-"));
  mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(
    readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8"),
  );
  journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx <= lastIdx);
  writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify(journal));
  for (const file of readdirSync(migrationsFolder).filter((f) => f.endsWith(".sql")))
    copyFileSync(path.join(migrationsFolder, file), path.join(dir, file));
  return dir;
}

const server = inject("testDatabase");
const name = `sb_test_${randomBytes(6).toString("hex")}`;
let sql: postgres.Sql;
let before18: string;

beforeAll(async () => {
  await admin(server.adminUrl, (a) => a.unsafe(`create database ${name}`));
  sql = postgres(withDatabase(server.adminUrl, name), { max: 1, onnotice: () => {} });
  before18 = folderUpTo(18);
  await migrate(drizzle(sql), { migrationsFolder: before18 });
});
afterAll(async () => {
  await sql?.end();
  await dropDatabase(server.adminUrl, name);
  rmSync(before18, { recursive: true, force: true });
});

it("0019 moves every event into the partitioned log, which goes on taking appends", async () => {
  const day = 24 * 3600_000;
  const written = [
    { id: "evt_old", agent: "agt_a", ts: new Date(Date.now() - 400 * day) },
    { id: "evt_mid", agent: "agt_b", ts: new Date(Date.now() - 3 * day) },
    { id: "evt_new", agent: "agt_a", ts: new Date() },
  ];
  for (const event of written)
    await sql`insert into events (id, agent_id, person_id, type, ts, payload)
      values (${event.id}, ${event.agent}, null, 'test.event', ${event.ts.toISOString()}::timestamptz, ${JSON.stringify({ n: event.id })}::jsonb)`;
  const rowsBefore = await sql`select seq, id, agent_id, ts, payload from events order by seq`;

  await migrate(drizzle(sql), { migrationsFolder });

  const [table] = await sql`select relkind from pg_class where relname = 'events'`;
  expect(table?.relkind).toBe("p");
  const rowsAfter = await sql`select seq, id, agent_id, ts, payload from events order by seq`;
  expect(rowsAfter).toEqual(rowsBefore);
  const placed = await sql`select id, tableoid::regclass::text as part from events order by seq`;
  expect(placed.map((row) => row.part)).toEqual([
    "events_history",
    "events_history",
    "events_history",
  ]);
  expect((await sql`select to_regclass('events_unpartitioned') as t`)[0]?.t).toBeNull();

  // seq continues from the same sequence, and a row past every partition goes to the default.
  const far = new Date(Date.now() + 365 * day);
  const [next] = await sql`insert into events (id, agent_id, type, ts, payload)
    values ('evt_far', 'agt_a', 'test.event', ${far.toISOString()}::timestamptz, '{}') returning seq, tableoid::regclass::text as part`;
  expect(Number(next?.seq)).toBe(Number(rowsBefore.at(-1)?.seq) + 1);
  expect(next?.part).toBe("events_default");

  // The keys still hold: a seq or an id and ts cannot be written twice.
  const again = sql`insert into events (seq, id, agent_id, type, ts, payload)
    values (${next?.seq}, 'evt_other', 'agt_a', 'test.event', ${far.toISOString()}::timestamptz, '{}')`;
  await expect(again).rejects.toThrow(/events_default_pkey|duplicate key/);
});
