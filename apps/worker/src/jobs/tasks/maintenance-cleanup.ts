import { type CoreDeps, cleanupExpired } from "@switchboard/core";

/** Periodic housekeeping: past rate windows and stale long-poll leases. */
export async function maintenanceCleanup(deps: CoreDeps): Promise<void> {
  await cleanupExpired(deps);
}
