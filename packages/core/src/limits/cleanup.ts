import { schema } from "@switchboard/db";
import { lt } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { endAbandonedReplies } from "../messaging/streamed-replies";

const { rateCounters, parkedPolls } = schema;

/**
 * Removes state that has run out: past rate windows (kept a day for the console), stale leases,
 * and streamed replies whose connection is gone.
 */
export async function cleanupExpired(
  deps: CoreDeps,
): Promise<{ rateCounters: number; parkedPolls: number; replies: number }> {
  const now = deps.clock.now();
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  const counters = await deps.db
    .delete(rateCounters)
    .where(lt(rateCounters.windowStart, dayAgo))
    .returning({ key: rateCounters.key });
  const leases = await deps.db
    .delete(parkedPolls)
    .where(lt(parkedPolls.expiresAt, now))
    .returning({ id: parkedPolls.id });
  // Streamed replies of a connection that died: ended once they are well past the idle limit.
  const replies = await endAbandonedReplies(
    deps,
    new Date(now.getTime() - 2 * deps.config.STREAM_REPLY_IDLE_S * 1000),
  );
  return { rateCounters: counters.length, parkedPolls: leases.length, replies };
}
