import postgres from "postgres";

/**
 * The floor app's one pool (every floor route shares it, as the service's routes share theirs).
 * Kept on globalThis: Next may load a module once per route bundle.
 */
const shared = globalThis as typeof globalThis & { __floorSql?: postgres.Sql };
shared.__floorSql ??= postgres(process.env.DATABASE_URL as string, { max: 10, onnotice: () => {} });
export const sql = shared.__floorSql;
