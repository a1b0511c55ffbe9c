import type { Executor } from "@switchboard/db";
import { enqueueJob, enqueueJobs } from "./enqueue-job";

/** The jobs that wake `drainWebhook` (deliver-webhook.ts). */

/**
 * Wakes a drain of each agent's webhook queue now. The job key makes it one waiting drain per
 * agent however many events commit; one that is already running leaves its key to a new job,
 * which runs after it (same queue) and sees what committed meanwhile.
 */
export async function enqueueWebhookDrains(db: Executor, agentIds: Iterable<string>) {
  // Sorted, so transactions that wake the same agents lock their jobs in one order.
  const sorted = [...new Set(agentIds)].sort();
  await enqueueJobs(
    db,
    "webhook_drain",
    sorted.map((agentId) => ({
      payload: { agentId },
      queue: webhookQueue(agentId),
      jobKey: `webhook-drain:${agentId}`,
    })),
  );
}

/** One agent's deliveries run one job at a time, in order. */
export const webhookQueue = (agentId: string) => `webhook:${agentId}`;

/**
 * Wakes a drain of the agent's queue at `runAt` for one delivery's next attempt. Keyed by the
 * delivery, so moving that attempt (a retry now) replaces its timer and never another's.
 */
export async function enqueueRetryDrain(
  db: Executor,
  agentId: string,
  deliveryId: number,
  runAt: Date,
): Promise<void> {
  await enqueueJob(
    db,
    "webhook_drain",
    { agentId },
    { queue: webhookQueue(agentId), jobKey: `webhook:${deliveryId}`, runAt },
  );
}
