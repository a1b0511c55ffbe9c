import { type Column, desc, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/**
 * Keyset paging, newest first: a list's order key is a time (a column, or an expression over
 * the row) and the row's id, and a page goes on strictly after its anchor, the last row of the
 * page before. Each list keeps its own cursor format (they are on the wire); this is the order
 * and the condition they share.
 */
export type OrderKey = readonly [at: SQL | Column, id: Column];

/** The order: the key's time, newest first, then its id, largest first. */
export const newestFirst = ([at, id]: OrderKey): [SQL, SQL] => [desc(at), desc(id)];

/**
 * Strictly after `anchor` in `newestFirst` order: an older time, or the same and a smaller id.
 * One row comparison; a row whose time is null is never after an anchor.
 */
export const olderThan = ([at, id]: OrderKey, anchor: SQL): SQL => sql`(${at}, ${id}) < ${anchor}`;

/** An anchor from a cursor's values: its time (as SQL, to keep microseconds) and its id. */
export function keyAt(at: Date | SQL, id: string): SQL {
  return sql`(${at instanceof Date ? sql`${at.toISOString()}::timestamptz` : at}, ${id})`;
}

/**
 * An anchor from a row named by its id: its key read in the database, where the timestamp keeps
 * the microseconds a Date would drop. The key's columns, qualified by the table's name, name the
 * subquery's own row there (the innermost table of that name).
 */
export function keyOfRow(table: PgTable, [at, id]: OrderKey, rowId: string): SQL {
  return sql`(select ${at}, ${id} from ${table} where ${id} = ${rowId})`;
}
