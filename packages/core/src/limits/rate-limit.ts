import type { ErrorCode } from "@switchboard/contract";
import { type Executor, schema } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { CoreError } from "../errors";

const { rateCounters } = schema;

/** Where a client stands against one limit; the API reports it in RateLimit-* headers. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the count starts over. */
  resetSeconds: number;
  /** Window length in seconds (RateLimit-Policy). */
  windowSeconds: number;
}

/** The fixed window `now` falls in (decision 0005). */
export function rateWindow(now: Date, windowSeconds: number) {
  const windowMs = windowSeconds * 1000;
  const start = new Date(Math.floor(now.getTime() / windowMs) * windowMs);
  const resetSeconds = Math.max(1, Math.ceil((start.getTime() + windowMs - now.getTime()) / 1000));
  return { start, resetSeconds, windowSeconds };
}

export function rateState(count: number, limit: number, window: ReturnType<typeof rateWindow>) {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: window.resetSeconds,
    windowSeconds: window.windowSeconds,
  };
}

/**
 * Counts one hit against `key` in the current window with one atomic upsert, so every process
 * shares the count. Inside a transaction the hit commits or rolls back with it (a refused send
 * does not use up the limit); the row lock also orders concurrent hits on the same key.
 */
export async function hitRateLimit(
  db: Executor,
  now: Date,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateState & { allowed: boolean }> {
  const window = rateWindow(now, windowSeconds);
  const [row] = await db
    .insert(rateCounters)
    .values({ key, windowStart: window.start, count: 1 })
    .onConflictDoUpdate({
      target: [rateCounters.key, rateCounters.windowStart],
      set: { count: sql`${rateCounters.count} + 1` },
    })
    .returning({ count: rateCounters.count });
  return rateState(row?.count ?? 1, limit, window);
}

/** The 429 for a limit that is used up; the state travels along for the RateLimit-* headers. */
export function rateLimitedError(
  state: RateState,
  what: string,
  code: Extract<ErrorCode, "rate_limited" | "conversation_rate_limited"> = "rate_limited",
): CoreError {
  const error = new CoreError(
    code,
    `Rate limit reached: ${state.limit} ${what} per ${state.windowSeconds} s; retry in ${state.resetSeconds} s`,
    { retryAfterSeconds: state.resetSeconds },
  );
  error.rate = state;
  return error;
}

/** `hitRateLimit`, throwing the 429 when over. */
export async function enforceRateLimit(
  db: Executor,
  now: Date,
  key: string,
  limit: number,
  windowSeconds: number,
  what: string,
  code?: Extract<ErrorCode, "rate_limited" | "conversation_rate_limited">,
): Promise<RateState> {
  const state = await hitRateLimit(db, now, key, limit, windowSeconds);
  if (!state.allowed) throw rateLimitedError(state, what, code);
  return state;
}
