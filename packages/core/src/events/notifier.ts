import type { Executor, Sql } from "@switchboard/db";
import { sql } from "drizzle-orm";

/** The one Postgres channel every process listens on; payloads are topics. */
export const NOTIFY_CHANNEL = "switchboard";

/**
 * What a wake-up is about: an agent's event log, a user's view of the apps, or an agent's
 * standing (`control:`: paused, token revoked, owner suspended, blocked or removed by a person).
 */
export type Topic = `agent:${string}` | `user:${string}` | `control:${string}`;

/**
 * Cross-process wake-ups: each process keeps one LISTEN connection and fans notifications out
 * to in-memory subscribers. A notification only says "look again"; subscribers re-read the
 * database, so a notification lost during a reconnect costs latency, never data.
 */
export class Notifier {
  private readonly subscribers = new Map<string, Set<() => void>>();
  private listening: Promise<unknown> | undefined;
  private attempt = 0;

  constructor(private readonly sql: Sql) {}

  /** Calls `onWake` for every notification on `topic` until the returned function is called. */
  async subscribe(topic: Topic, onWake: () => void): Promise<() => void> {
    // One LISTEN for the process; once it holds, postgres.js re-listens by itself after a lost
    // connection. A first LISTEN that failed (database briefly unreachable) is forgotten, so the
    // next subscriber tries again instead of every later one failing too. postgres.js keeps the
    // failed attempt's callback and may revive it later: only the current attempt's dispatches.
    const attempt = this.attempt;
    this.listening ??= this.sql
      .listen(NOTIFY_CHANNEL, (payload) => {
        if (attempt === this.attempt) this.dispatch(payload);
      })
      .catch((error: unknown) => {
        this.attempt++;
        this.listening = undefined;
        throw error;
      });
    await this.listening;
    const set = this.subscribers.get(topic) ?? new Set();
    this.subscribers.set(topic, set);
    set.add(onWake);
    return () => {
      set.delete(onWake);
      if (set.size === 0) this.subscribers.delete(topic);
    };
  }

  /**
   * The wake-ups on `topic` as an async iterable, for live views: yields once at the start (so
   * a view that (re)connects re-reads) and then once per burst of notifications, coalescing
   * those that arrive while the consumer is busy. Ends when `signal` aborts.
   */
  async *watch(topic: Topic, signal: AbortSignal): AsyncGenerator<void> {
    let pending = true;
    let wakeConsumer: (() => void) | undefined;
    const onWake = () => {
      pending = true;
      wakeConsumer?.();
    };
    const unsubscribe = await this.subscribe(topic, onWake);
    const onAbort = () => wakeConsumer?.();
    signal.addEventListener("abort", onAbort);
    try {
      while (!signal.aborted) {
        if (!pending)
          await new Promise<void>((resolve) => {
            wakeConsumer = resolve;
          });
        wakeConsumer = undefined;
        if (signal.aborted) return;
        pending = false;
        yield;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      unsubscribe();
    }
  }

  private dispatch(payload: string): void {
    for (const topic of payload.split(",")) {
      for (const wake of this.subscribers.get(topic) ?? []) wake();
    }
  }
}

/** Postgres refuses a NOTIFY payload of 8000 bytes or more; topics are ASCII. */
const MAX_NOTIFY_PAYLOAD = 7900;

/**
 * Queues wake-ups inside the caller's transaction; Postgres delivers them at commit. Many topics
 * (a feed post wakes everyone who follows the agent) go in as many notifications as fit.
 */
export async function notifyTopics(db: Executor, topics: Iterable<Topic>): Promise<void> {
  const payloads: string[] = [];
  let current = "";
  for (const topic of new Set(topics)) {
    if (current && current.length + 1 + topic.length > MAX_NOTIFY_PAYLOAD) {
      payloads.push(current);
      current = "";
    }
    current = current ? `${current},${topic}` : topic;
  }
  if (current) payloads.push(current);
  if (payloads.length === 0) return;
  const list = sql.join(
    payloads.map((payload) => sql`${payload}`),
    sql`, `,
  );
  await db.execute(
    sql`select pg_notify(${NOTIFY_CHANNEL}, p) from unnest(array[${list}]::text[]) as p`,
  );
}
