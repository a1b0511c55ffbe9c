import { createDb, type Db, type Sql } from "@switchboard/db";
import type { Clock } from "./clock";
import { systemClock } from "./clock";
import type { Config } from "./config";
import { Notifier } from "./events/notifier";
import type { IdempotentWrite } from "./idempotency/idempotency-keys";
import { LeaseKeeper } from "./limits/leases";

/** Everything core needs from the outside world, passed explicitly. */
export interface CoreDeps {
  db: Db;
  sql: Sql;
  clock: Clock;
  config: Config;
  /** This process's LISTEN connection, fanned out to in-memory subscribers. */
  notifier: Notifier;
  /** The long-poll and stream leases this process holds, renewed while it lives. */
  leases: LeaseKeeper;
  /**
   * Set for one POST that carries an `Idempotency-Key`: the write's transaction stores the
   * request's answer with it (`seal`), so a retry replays and never acts twice.
   */
  idempotentWrite?: IdempotentWrite;
}

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
      await close();
    },
  };
}
