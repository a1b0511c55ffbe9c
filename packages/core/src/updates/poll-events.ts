import type { AgentUpdatesQuery, AgentUpdatesResponse } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { controlTopic } from "../events/agent-control";
import { readEvents } from "../events/read-events";
import { assertTokenStanding } from "../identity/agent-tokens";
import { acquireLease } from "../limits/leases";
import { metrics } from "../metrics";
import { drainSignal } from "../shutdown";

/**
 * `GET /updates`: events after `afterSeq`; when there are none and `wait` is above 0, parks
 * until an event for this agent commits (woken by NOTIFY from any process) or the wait ends.
 * At most LONGPOLL_MAX_PARKED requests per agent may be parked at once, across all processes.
 * A process that is draining (shutdown.ts) answers at once instead of parking. Given the
 * caller's `tokenId`, a parked poll re-checks the token's standing when the agent's control topic
 * wakes (paused, token revoked, owner suspended) and answers that refusal at once. Given `known`
 * (whether any event follows the cursor, read by the call's admission), "nothing new" costs no
 * read of its own.
 */
export async function pollEvents(
  deps: CoreDeps,
  agentId: string,
  query: AgentUpdatesQuery,
  signal?: AbortSignal,
  tokenId?: string,
  known?: { afterSeq: number; any: boolean },
): Promise<AgentUpdatesResponse> {
  const drain = drainSignal();
  // The call's admission may have looked already (`AdmissionRead`): no event after the cursor
  // means none to show, so the first read is skipped; a parked poll still reads once subscribed.
  const first =
    known && known.afterSeq === query.afterSeq && !known.any
      ? { events: [], nextSeq: query.afterSeq }
      : await readEvents(deps, agentId, query.afterSeq, query.limit);
  const waitMs = Math.min(query.wait, deps.config.LONGPOLL_MAX_WAIT_S) * 1000;
  if (first.events.length > 0 || waitMs <= 0 || drain.aborted) return first;

  const lease = await acquireLease(
    deps,
    "long-poll",
    agentId,
    deps.config.LONGPOLL_MAX_PARKED,
    "long-poll requests",
  );
  // A notification means "read again". Events the agent is not shown (a person-surface event
  // without its grant) also notify; the poll then reads nothing and parks again until its wait ends.
  let pending = false;
  let wake: (() => void) | undefined;
  let control = false;
  const unsubscribe = await deps.notifier.subscribe(`agent:${agentId}`, () => {
    pending = true;
    wake?.();
  });
  const unsubscribeControl = tokenId
    ? await deps.notifier.subscribe(controlTopic(agentId), () => {
        control = true;
        wake?.();
      })
    : () => {};
  // The client going away or the process draining ends the park too. Plain listeners, removed
  // when the poll ends, not AbortSignal.any: a request that ends normally never aborts its
  // signal, and Node keeps a composite signal that still has a listener for the life of the
  // process, with everything the listener reaches: the request (decision 0046).
  const stopped = () => signal?.aborted === true || drain.aborted;
  const onStop = () => wake?.();
  signal?.addEventListener("abort", onStop);
  drain.addEventListener("abort", onStop);
  const deadline = Date.now() + waitMs;
  metrics.parkedPolls.inc();
  try {
    // Subscribed first, then read again: an event committed in between is not missed.
    for (;;) {
      if (control && tokenId) {
        control = false;
        await assertTokenStanding(deps, tokenId);
      }
      pending = false;
      const page = await readEvents(deps, agentId, query.afterSeq, query.limit);
      const left = deadline - Date.now();
      if (page.events.length > 0 || left <= 0 || stopped()) return page;
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
    metrics.parkedPolls.dec();
    unsubscribe();
    unsubscribeControl();
    await lease.release();
  }
}
