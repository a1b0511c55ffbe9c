import type { AgentUpdatesQuery, AgentUpdatesResponse } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { readEvents } from "../events/read-events";
import { assertTokenStanding } from "../identity/agent-tokens";
import { metrics } from "../metrics";
import { parkUntilWoken } from "./park-until-woken";

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
  // The call's admission may have looked already (`AdmissionRead`): no event after the cursor
  // means none to show, so the first read is skipped; a parked poll still reads once subscribed.
  const first =
    known && known.afterSeq === query.afterSeq && !known.any
      ? { events: [], nextSeq: query.afterSeq }
      : await readEvents(deps, agentId, query.afterSeq, query.limit);
  return parkUntilWoken(deps, agentId, {
    first,
    read: () => readEvents(deps, agentId, query.afterSeq, query.limit),
    ready: (page) => page.events.length > 0,
    maxMs: Math.min(query.wait, deps.config.LONGPOLL_MAX_WAIT_S) * 1000,
    signal,
    ...(tokenId && { onControl: () => assertTokenStanding(deps, tokenId) }),
    gauge: metrics.parkedPolls,
  });
}
