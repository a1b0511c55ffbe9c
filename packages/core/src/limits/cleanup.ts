import { schema } from "@switchboard/db";
import { lt } from "drizzle-orm";
import type { CoreDeps } from "../deps";

const { rateCounters, parkedPolls } = schema;

/** Removes state that has run out: past rate windows (kept a day for the console) and stale leases. */
export async function cleanupExpired(
  deps: CoreDeps,
): Promise<{ rateCounters: number; parkedPolls: number }> {
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
  return { rateCounters: counters.length, parkedPolls: leases.length };
}
