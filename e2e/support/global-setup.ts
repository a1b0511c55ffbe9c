import { mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { ensureWebBuild } from "@switchboard/cli/build";
import { startService } from "@switchboard/cli/service";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { E2E_SERVICE_ENV } from "./service-env";

/**
 * Boots the whole service once for the run, as `npm start` would, on a fresh migrated database
 * (DATABASE_URL's server when set, otherwise a throwaway embedded Postgres). Service output goes
 * to test-results/service.log. Tests reach the database through E2E_DATABASE_URL for fixtures.
 */
export default async function globalSetup() {
  const server = await startTestDatabaseServer();
  const database = await createTestDatabase(server);
  process.env.NEXT_DIST_DIR ??= ".next-e2e";
  ensureWebBuild();
  const logDir = path.resolve(import.meta.dirname, "../test-results");
  mkdirSync(logDir, { recursive: true });
  const log = openSync(path.join(logDir, "service.log"), "w");
  const service = await startService({
    databaseUrl: database.url,
    port: Number(process.env.E2E_PORT),
    wsPort: Number(process.env.E2E_WS_PORT),
    env: E2E_SERVICE_ENV,
    output: log,
  });
  process.env.E2E_DATABASE_URL = database.url;
  // For specs that run a service of their own on a fresh database (createTestDatabase).
  process.env.E2E_DATABASE_ADMIN_URL = server.adminUrl;
  process.env.E2E_DATABASE_TEMPLATE = server.template;
  return async () => {
    await service.stop();
    await dropDatabase(server.adminUrl, database.name);
    await server.stop();
  };
}
