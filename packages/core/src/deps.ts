import type { Db, Sql, Tx } from "@switchboard/db";
import type { PendingQuery, Row } from "postgres";
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
  /**
   * Set for one POST that carries an `Idempotency-Key`: the write's transaction stores the
   * request's answer with it (`seal`), so a retry replays and never acts twice.
   */
  idempotentWrite?: AnswerSeal;
  /**
   * Set for one call whose send may let it in (decision 0083): the send's one statement makes
   * the call's admission too, or the send throws `AdmitFirst` having changed nothing.
   */
  admitInSend?: SendAdmission;
}

/** A call's admission as parts of its send's statement (identity/agent-tokens.ts `AdmissionInSend`). */
export interface SendAdmission {
  parts(pg: Sql): {
    ctes: PendingQuery<Row[]>;
    /** True when the admission let the call in. */
    admitted: PendingQuery<Row[]>;
    requestCount: PendingQuery<Row[]>;
  };
  /** Called with the request count once the statement that let the call in has committed. */
  letIn(requestCount: number): void;
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

/** One keyed POST's answer store (idempotency/idempotency-keys.ts `IdempotentWrite`). */
export interface AnswerSeal {
  /**
   * Stores the answer in the write's transaction `tx`; throws (rolling the write back) when a
   * retry took the key over meanwhile. `keptSealed`: what to store instead of the plain answer.
   */
  seal(tx: Tx, answer: unknown, keptSealed?: string): Promise<void>;
}
