import type { ErrorCode } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";

const { rateCounters } = schema;

export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts over. */
  resetSeconds: number;
}

/**
 * Counts one hit against `key` in the current fixed window and answers the state after it. One
 * atomic upsert, so every process shares the count. The hit is counted even when over the
 * limit; `allowed` says whether this one fits.
 */
export async function hitRateLimit(
  deps: CoreDeps,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateState & { allowed: boolean }> {
  const now = deps.clock.now().getTime();
  const windowMs = windowSeconds * 1000;
  const windowStart = new Date(Math.floor(now / windowMs) * windowMs);
  const [row] = await deps.db
    .insert(rateCounters)
    .values({ key, windowStart, count: 1 })
    .onConflictDoUpdate({
      target: [rateCounters.key, rateCounters.windowStart],
      set: { count: sql`${rateCounters.count} + 1` },
    })
    .returning({ count: rateCounters.count });
  const count = row?.count ?? 1;
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart.getTime() + windowMs - now) / 1000)),
  };
}

/** Like `hitRateLimit`, but throws the 429 error when over. */
export async function enforceRateLimit(
  deps: CoreDeps,
  key: string,
  limit: number,
  windowSeconds: number,
  code: Extract<ErrorCode, "rate_limited" | "conversation_rate_limited"> = "rate_limited",
): Promise<RateState> {
  const state = await hitRateLimit(deps, key, limit, windowSeconds);
  if (!state.allowed)
    throw new CoreError(
      code,
      `Rate limit of ${limit} per ${windowSeconds} s reached; retry in ${state.resetSeconds} s`,
      {
        retryAfterSeconds: state.resetSeconds,
      },
    );
  return state;
}
