import { createDb } from "@switchboard/db";
import { type Clock, systemClock } from "./clock";
import type { Config } from "./config";
import type { CoreDeps } from "./deps";
import { Notifier, sendPendingWakes } from "./events/notifier";
import { LeaseKeeper } from "./limits/leases";

/** Wires core for one process: its database pool, its LISTEN connection, its lease keeper. */
export function createDeps(config: Config, options: { clock?: Clock; poolSize?: number } = {}) {
  if (!config.DATABASE_URL) throw new Error("DATABASE_URL is not set");
  const { db, sql, close } = createDb(config.DATABASE_URL, { max: options.poolSize });
  const clock = options.clock ?? systemClock;
  const leases = new LeaseKeeper(db, clock);
  const deps: CoreDeps = { db, sql, clock, config, notifier: new Notifier(sql, clock), leases };
  return {
    deps,
    close: async () => {
      leases.stop();
      await sendPendingWakes(sql);
      await close();
    },
  };
}
