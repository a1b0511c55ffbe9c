import { createDb } from "@switchboard/db";
import { createTestDatabase, dropDatabase } from "@switchboard/db/testing";
import { inject } from "vitest";
import { type Clock, ManualClock } from "./clock";
import { type Config, loadConfig } from "./config";
import type { CoreDeps } from "./deps";
import { Notifier } from "./events/notifier";

/**
 * Core deps over a fresh migrated database for one test file, with a manual clock and config
 * overrides (env-style strings, exactly as an operator would set them).
 */
export async function createTestDeps(
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<{
  deps: CoreDeps & { clock: Clock };
  clock: ManualClock;
  config: Config;
  close(): Promise<void>;
}> {
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const config = loadConfig({ ...options.env, DATABASE_URL: database.url });
  const { db, sql, close } = createDb(database.url, { max: 5 });
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock();
  return {
    deps: { db, sql, clock, config, notifier: new Notifier(sql) },
    clock,
    config,
    close: async () => {
      await close();
      await dropDatabase(server.adminUrl, database.name);
    },
  };
}
