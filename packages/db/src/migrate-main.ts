import { migrateDatabase } from "./migrate";

/**
 * `npm run migrate`: applies the migrations to DATABASE_URL and exits. A deployment runs it once
 * before starting the new version's processes (they answer /readyz 503 until it has run).
 */
// biome-ignore lint/style/noProcessEnv: a command-line entry point reads its environment.
const url = process.env.DATABASE_URL;
if (!url) {
  console.error("npm run migrate: set DATABASE_URL to the database to migrate");
  process.exit(1);
}
await migrateDatabase(url);
console.log("Migrations applied.");
