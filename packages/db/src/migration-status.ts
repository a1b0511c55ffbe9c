import journal from "../../../drizzle/meta/_journal.json" with { type: "json" };
import type { Sql } from "./client";

/** How many of the migrations this code was built with the database has applied. */
export interface MigrationStatus {
  applied: number;
  expected: number;
}

/**
 * Reads drizzle's record of applied migrations and compares it with the journal shipped with
 * this code (imported, so it is part of whatever bundle runs this). A database without the
 * record has applied none.
 */
export async function migrationStatus(sql: Sql): Promise<MigrationStatus> {
  const expected = journal.entries.length;
  const [table] = await sql<{ exists: boolean }[]>`
    select to_regclass('drizzle.__drizzle_migrations') is not null as exists`;
  if (!table?.exists) return { applied: 0, expected };
  const [row] = await sql<{ applied: number }[]>`
    select count(*)::int as applied from drizzle.__drizzle_migrations`;
  return { applied: row?.applied ?? 0, expected };
}
