import { hostname } from "node:os";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

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
    connection: { application_name: applicationName },
    ...(options.debug && { debug: options.debug }),
  });
  const db = drizzle(sql, { schema, casing: "snake_case" });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}

export type Database = ReturnType<typeof createDb>;
export type Db = Database["db"];
export type Sql = Database["sql"];
/** A transaction handle; core functions that write accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type Executor = Db | Tx;

/** Postgres' unique_violation, for callers that retry on a taken number or name. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = (error as { cause?: unknown })?.cause ?? error;
  const pgError = e as { code?: string; constraint_name?: string };
  return pgError?.code === "23505" && (!constraint || pgError.constraint_name === constraint);
}
