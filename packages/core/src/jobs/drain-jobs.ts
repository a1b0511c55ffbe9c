import type { Executor } from "@switchboard/db";
import { enqueueJob } from "./enqueue-job";

/**
 * Wakes the agent's webhook drain at `runAt` for one delivery's next attempt (the drain itself
 * runs in a worker's `WebhookDrains`, decision 0055). Keyed by the delivery, so moving that
 * attempt (a retry now) replaces its timer and never another's.
 */
export async function enqueueRetryDrain(
  db: Executor,
  agentId: string,
  deliveryId: number,
  runAt: Date,
): Promise<void> {
  await enqueueJob(db, "webhook_drain", { agentId }, { jobKey: `webhook:${deliveryId}`, runAt });
}
