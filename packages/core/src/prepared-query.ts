import type { Db } from "@switchboard/db";

/**
 * A hot path's drizzle query, built once per database handle and then run with placeholders
 * (`sql.placeholder`). Building a select with a few joins in drizzle takes longer than Postgres
 * takes to run it, and every statement is prepared already (decision 0033).
 */
export function preparedQuery<Query>(build: (db: Db) => Query): (db: Db) => Query {
  const built = new WeakMap<Db, Query>();
  return (db) => {
    let query = built.get(db);
    if (query === undefined) {
      query = build(db);
      built.set(db, query);
    }
    return query;
  };
}
