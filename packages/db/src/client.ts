import { hostname } from "node:os";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";

export interface DbOptions {
  /** Pool size; each process keeps one pool for its lifetime. */
  max?: number;
  /** Sees every statement sent with its parameters (tests that inspect query plans). */
  debug?: (connection: number, query: string, parameters: unknown[]) => void;
}

/**
 * The name this process's connections carry in `pg_stat_activity`: its pool's connections can be
 * counted there (the pool metrics), and a DBA sees which host and process holds what.
 */
export const applicationName = `switchboard ${hostname()}:${process.pid}`.slice(0, 63);

/** One connection pool and the drizzle handle over it. Create once per process. */
export function createDb(url: string, options: DbOptions = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 60,
    onnotice: () => {},
    // Prepared statements keep one generic plan (decision 0047): a custom plan is planned again on
    // every call, which over the event log's partitions costs more than running the read.
    connection: { application_name: applicationName, plan_cache_mode: "force_generic_plan" },
    ...(options.debug && { debug: options.debug }),
  });
  // No `schema`: nothing uses drizzle's relational queries (`db.query.…`), and with a schema
  // every transaction builds one query builder per table before its first statement.
  const db = drizzle(preparedStatements(sql), { casing: "snake_case" });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}

/**
 * The client drizzle sends through, with every statement prepared (decision 0033). drizzle
 * sends its queries unnamed, and postgres.js then asks Postgres to describe each one before it
 * runs it: two round trips, a parse and a plan for every statement of every request. Prepared,
 * a statement is parsed once per connection and then costs one round trip. postgres.js keys
 * them by text (our statements take values only as parameters, so the set is small), re-prepares
 * one a schema change invalidated, and recycles connections, and their statements, within the
 * hour. Transactions and savepoints hand out the same kind of client.
 */
function preparedStatements(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === "unsafe")
        return (query: string, parameters?: never[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, parameters, { ...options, prepare: true });
      if (property === "begin" || property === "savepoint")
        return (...args: unknown[]) => {
          const scoped = args.pop() as (client: postgres.Sql) => unknown;
          return Reflect.get(
            target,
            property,
            receiver,
          )(...args, (client: postgres.Sql) => scoped(preparedStatements(client)));
        };
      return Reflect.get(target, property, receiver);
    },
  });
}

export type Database = ReturnType<typeof createDb>;
export type Db = Database["db"];
export type Sql = Database["sql"];
/** A transaction handle; core functions that write accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type Executor = Db | Tx;

/**
 * The postgres.js client under a drizzle handle: the pool's for a `Db`, the transaction's own
 * connection for a `Tx`. A hot path's statement written as a postgres.js template (one fixed
 * text, nothing built per call but its parameters; decision 0075) runs on it inside a drizzle
 * transaction.
 */
export function clientOf(executor: Executor): Sql {
  return (executor as unknown as { session: { client: Sql } }).session.client;
}

/** Postgres' unique_violation, for callers that retry on a taken number or name. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = (error as { cause?: unknown })?.cause ?? error;
  const pgError = e as { code?: string; constraint_name?: string };
  return pgError?.code === "23505" && (!constraint || pgError.constraint_name === constraint);
}
