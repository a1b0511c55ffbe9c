import type { Db, Sql } from "@switchboard/db";
import type { Clock } from "./clock";
import type { Config } from "./config";

/**
 * Everything core needs from the outside world, passed explicitly. Types only, with narrow
 * interfaces of the two process-wide parts, so every module of core can depend on it while
 * it depends on none of them (create-deps.ts builds it).
 */
export interface CoreDeps {
  db: Db;
  sql: Sql;
  clock: Clock;
  config: Config;
  /** This process's LISTEN connection, fanned out to in-memory subscribers. */
  notifier: WakeUps;
  /** The long-poll and stream leases this process holds, renewed while it lives. */
  leases: LeaseHolder;
}

/** Wake-ups heard on the process's one LISTEN connection (events/notifier.ts `Notifier`). */
export interface WakeUps {
  /** Calls `onWake` for every wake-up on `topic` (with what changed, when named) until undone. */
  subscribe(topic: string, onWake: (change?: string) => void): Promise<() => void>;
  /** Yields what changed on `topic` (null: anything may have) until `signal` aborts. */
  watch(topic: string, signal: AbortSignal, since?: number): AsyncGenerator<string[] | null>;
}

/** The leases this process renews while it lives (limits/leases.ts `LeaseKeeper`). */
export interface LeaseHolder {
  hold(kind: "long-poll" | "stream", id: string): void;
  drop(kind: "long-poll" | "stream", id: string): void;
}
