import type { CoreDeps } from "../deps";
import { enforceRateLimit } from "./rate-limit";

/**
 * Counts one console (tRPC) request of a signed-in person against
 * `LIMIT_CONSOLE_REQUESTS_PER_MIN`, in the shared counters so the limit holds across every web
 * process; 429 `rate_limited` when over. Per person, not per session: signing in again does not
 * buy a fresh allowance.
 */
export async function enforceConsoleRequestLimit(deps: CoreDeps, userId: string): Promise<void> {
  await enforceRateLimit(
    deps.db,
    deps.clock.now(),
    `console:${userId}`,
    deps.config.LIMIT_CONSOLE_REQUESTS_PER_MIN,
    60,
    "console requests",
  );
}
