/** The latest a receiver's `Retry-After` may put the next attempt: the schedule's longest step. */
export const RETRY_AFTER_CAP_MS = 12 * 3600_000;

/** Each scheduled retry moves by up to this share of its step, earlier or later. */
export const RETRY_JITTER = 0.1;

/** The answers whose `Retry-After` a delivery honours: "too many requests" and "unavailable". */
const honoursRetryAfter = (status: number | undefined) => status === 429 || status === 503;

/**
 * How long after a failed attempt the next one comes: the schedule's step ± 10 % (so the
 * retries of events that failed together do not march in step), or later when a receiver that
 * answered 429 or 503 asked for it in `Retry-After` (seconds or an HTTP date): never sooner
 * than the scheduled attempt, never later than 12 h.
 */
export function retryDelayMs(
  stepS: number,
  answer: { status?: number; retryAfter?: string },
  now: Date,
  random: () => number = Math.random,
): number {
  const scheduled = Math.round(stepS * 1000 * (1 + RETRY_JITTER * (2 * random() - 1)));
  const asked = honoursRetryAfter(answer.status) ? retryAfterMs(answer.retryAfter, now) : null;
  if (asked === null) return scheduled;
  return Math.max(scheduled, Math.min(asked, RETRY_AFTER_CAP_MS));
}

/** A `Retry-After` value in ms from `now`, or null when absent or unreadable. */
function retryAfterMs(value: string | undefined, now: Date): number | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
