import type { Executor, Sql } from "@switchboard/db";
import { sql } from "drizzle-orm";

/** The one Postgres channel every process listens on; payloads are topics. */
export const NOTIFY_CHANNEL = "switchboard";

/** What a wake-up is about: an agent's event log, or a user's view of the apps. */
export type Topic = `agent:${string}` | `user:${string}`;

/**
 * Cross-process wake-ups: each process keeps one LISTEN connection and fans notifications out
 * to in-memory subscribers. A notification only says "look again"; subscribers re-read the
 * database, so a notification lost during a reconnect costs latency, never data.
 */
export class Notifier {
  private readonly subscribers = new Map<string, Set<() => void>>();
  private listening: Promise<unknown> | undefined;

  constructor(private readonly sql: Sql) {}

  /** Calls `onWake` for every notification on `topic` until the returned function is called. */
  async subscribe(topic: Topic, onWake: () => void): Promise<() => void> {
    this.listening ??= this.sql.listen(NOTIFY_CHANNEL, (payload) => this.dispatch(payload));
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

/** Queues wake-ups inside the caller's transaction; Postgres delivers them at commit. */
export async function notifyTopics(db: Executor, topics: Iterable<Topic>): Promise<void> {
  const unique = [...new Set(topics)];
  if (unique.length === 0) return;
  await db.execute(sql`select pg_notify(${NOTIFY_CHANNEL}, ${unique.join(",")})`);
}
