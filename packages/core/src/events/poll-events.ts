import type { AgentUpdatesQuery, AgentUpdatesResponse } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { acquireLease } from "../limits/leases";
import { readEvents } from "./read-events";

/**
 * `GET /updates`: events after `afterSeq`; when there are none and `wait` is above 0, parks
 * until an event for this agent commits (woken by NOTIFY from any process) or the wait ends.
 * At most LONGPOLL_MAX_PARKED requests per agent may be parked at once, across all processes.
 */
export async function pollEvents(
  deps: CoreDeps,
  agentId: string,
  query: AgentUpdatesQuery,
  signal?: AbortSignal,
): Promise<AgentUpdatesResponse> {
  const first = await readEvents(deps, agentId, query.afterSeq, query.limit);
  const waitMs = Math.min(query.wait, deps.config.LONGPOLL_MAX_WAIT_S) * 1000;
  if (first.events.length > 0 || waitMs <= 0) return first;

  // The lease outlives the wait by a margin; a crashed process's lease then ends by itself.
  const lease = await acquireLease(
    deps,
    "long-poll",
    agentId,
    deps.config.LONGPOLL_MAX_PARKED,
    waitMs + 30_000,
    "long-poll requests",
  );
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const unsubscribe = await deps.notifier.subscribe(`agent:${agentId}`, () => wake());
  try {
    // Subscribed first, then read again: an event committed in between is not missed.
    const again = await readEvents(deps, agentId, query.afterSeq, query.limit);
    if (again.events.length > 0) return again;
    await Promise.race([woken, delay(waitMs, signal)]);
    return await readEvents(deps, agentId, query.afterSeq, query.limit);
  } finally {
    unsubscribe();
    await lease.release();
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
