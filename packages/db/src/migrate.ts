import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { Logger, runMigrations as runJobQueueMigrations } from "graphile-worker";
import postgres from "postgres";

export const migrationsFolder = fileURLToPath(new URL("../../../drizzle", import.meta.url));

/** Any advisory-lock key will do as long as every process uses the same one. */
const MIGRATION_LOCK = 0x5b0a2d;

/**
 * Applies the committed SQL migrations in drizzle/. Safe to call from several processes at once:
 * the first takes the lock and migrates, the others wait and find nothing left to do.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(sql), { migrationsFolder });
    // The job queue (graphile-worker) keeps its own schema; it must exist before anyone enqueues.
    await runJobQueueMigrations({ connectionString: url, logger: quietLogger });
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** graphile-worker's migrations log every step at info; only problems matter here. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.warn(`[job queue] ${message}`);
});
