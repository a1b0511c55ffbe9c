import type { CoreDeps } from "../deps";
import { controlTopic } from "../events/agent-control";
import { acquireLease } from "../limits/leases";
import { drainSignal } from "../shutdown";

/** What a parked call waits for, and how it reads it again. */
export interface Park<T> {
  /** What the caller read already; answered at once when it is `ready`, or there is no wait. */
  first: T;
  /** Reads what the caller waits for: once subscribed, then after every wake-up. */
  read: () => Promise<T>;
  /** Whether a read answers the caller now. */
  ready: (value: T) => boolean;
  /** How long the park may last, in milliseconds. */
  maxMs: number;
  /** The client going away: ends the park with the last read. */
  signal?: AbortSignal;
  /**
   * Given, the agent's control topic (paused, token revoked, owner suspended) wakes the park
   * too, and this runs before the next read: it throws to end the park with a refusal.
   */
  onControl?: () => Promise<void>;
  /** Given, counts the park while it is parked (after its lease and subscriptions). */
  gauge?: { inc(): void; dec(): void };
}

/**
 * Parks a call of an agent's until its event log wakes it (NOTIFY, from any process) and a read
 * is `ready`, or until `maxMs` passes, the client goes away or the process drains; answers the
 * last read. A draining process (shutdown.ts) answers `first` at once instead of parking. Each
 * park holds one of the agent's LONGPOLL_MAX_PARKED long-poll leases, across all processes
 * (`rate_limited` past them). Used by `GET /updates` and the MCP task's wait for a decision.
 */
export async function parkUntilWoken<T>(
  deps: CoreDeps,
  agentId: string,
  { first, read, ready, maxMs, signal, onControl, gauge }: Park<T>,
): Promise<T> {
  const drain = drainSignal();
  if (ready(first) || maxMs <= 0 || drain.aborted) return first;

  const lease = await acquireLease(
    deps,
    "long-poll",
    agentId,
    deps.config.LONGPOLL_MAX_PARKED,
    "long-poll requests",
  );
  // A notification means "read again". Events the agent is not shown (a person-surface event
  // without its grant) also notify; the read then is not ready and the call parks again.
  let pending = false;
  let wake: (() => void) | undefined;
  let control = false;
  const unsubscribe = await deps.notifier.subscribe(`agent:${agentId}`, () => {
    pending = true;
    wake?.();
  });
  const unsubscribeControl = onControl
    ? await deps.notifier.subscribe(controlTopic(agentId), () => {
        control = true;
        wake?.();
      })
    : () => {};
  // The client going away or the process draining ends the park too. Plain listeners, removed
  // when the park ends, not AbortSignal.any: a request that ends normally never aborts its
  // signal, and Node keeps a composite signal that still has a listener for the life of the
  // process, with everything the listener reaches: the request (decision 0046).
  const stopped = () => signal?.aborted === true || drain.aborted;
  const onStop = () => wake?.();
  signal?.addEventListener("abort", onStop);
  drain.addEventListener("abort", onStop);
  const deadline = Date.now() + maxMs;
  gauge?.inc();
  try {
    // Subscribed first, then read again: a change committed in between is not missed.
    for (;;) {
      if (control && onControl) {
        control = false;
        await onControl();
      }
      pending = false;
      const value = await read();
      const left = deadline - Date.now();
      if (ready(value) || left <= 0 || stopped()) return value;
      if (!pending && !control)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      wake = undefined;
    }
  } finally {
    signal?.removeEventListener("abort", onStop);
    drain.removeEventListener("abort", onStop);
    gauge?.dec();
    unsubscribe();
    unsubscribeControl();
    await lease.release();
  }
}
