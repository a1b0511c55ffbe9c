import { randomUUID } from "node:crypto";
import type { AgentUpdatesQuery, AgentUpdatesResponse } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, count, eq, gt, lte, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { readEvents } from "./read-events";

const { parkedPolls } = schema;

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

  const release = await parkPoll(deps, agentId, waitMs);
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
    await release();
  }
}

async function parkPoll(
  deps: CoreDeps,
  agentId: string,
  waitMs: number,
): Promise<() => Promise<void>> {
  const id = randomUUID();
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    // One parker at a time per agent decides, so the count cannot be raced past the cap.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`parked:${agentId}`}))`);
    await tx
      .delete(parkedPolls)
      .where(and(eq(parkedPolls.agentId, agentId), lte(parkedPolls.expiresAt, now)));
    const [row] = await tx
      .select({ parked: count() })
      .from(parkedPolls)
      .where(and(eq(parkedPolls.agentId, agentId), gt(parkedPolls.expiresAt, now)));
    const max = deps.config.LONGPOLL_MAX_PARKED;
    if ((row?.parked ?? 0) >= max)
      throw new CoreError("rate_limited", `At most ${max} long-poll requests may wait at once`, {
        retryAfterSeconds: 1,
      });
    // The lease outlives the wait by a margin; a crashed process's lease then ends by itself.
    await tx
      .insert(parkedPolls)
      .values({ id, agentId, expiresAt: new Date(now.getTime() + waitMs + 30_000) });
  });
  return async () => {
    await deps.db.delete(parkedPolls).where(eq(parkedPolls.id, id));
  };
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
