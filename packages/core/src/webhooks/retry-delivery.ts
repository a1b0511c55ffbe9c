import { schema } from "@switchboard/db";
import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { enqueueRetryDrain } from "../jobs/drain-jobs";

const { webhookDeliveries, webhooks } = schema;

/**
 * The owner's "Retry now" on one event: a delivery waiting for its next attempt runs at once,
 * and a dead one gets one more attempt now. The attempt count goes on from where it was, so a
 * manual retry never starts the schedule over: a dead event that fails again stays dead. Only
 * while the webhook is active (a disabled one is resumed first, which retries every dead event).
 */
export function retryWebhookDelivery(
  deps: CoreDeps,
  agentId: string,
  eventId: string,
): Promise<{ status: "pending"; attempt: number }> {
  return requeue(deps, agentId, eventId, false);
}

/**
 * The owner's "Resend" (Stripe's): one event sent again, delivered or not, as a new attempt of
 * the same event: same id, the event as the agent may see it now, the same signature scheme,
 * `X-Svc-Delivery-Attempt` one more than the last. It runs in the agent's queue, in seq order
 * with whatever else is due. Only while the webhook is active.
 */
export function redeliverWebhookEvent(
  deps: CoreDeps,
  agentId: string,
  eventId: string,
): Promise<{ status: "pending"; attempt: number }> {
  return requeue(deps, agentId, eventId, true);
}

async function requeue(
  deps: CoreDeps,
  agentId: string,
  eventId: string,
  delivered: boolean,
): Promise<{ status: "pending"; attempt: number }> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [webhook] = await tx
      .select({ state: webhooks.state })
      .from(webhooks)
      .where(eq(webhooks.agentId, agentId));
    if (!webhook) throw new CoreError("not_found", "This agent has no webhook");
    if (webhook.state !== "active")
      throw new CoreError("conflict", `The webhook is ${webhook.state}; resume it to retry`);
    const [delivery] = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: now, updatedAt: now })
      .where(
        and(
          eq(webhookDeliveries.agentId, agentId),
          eq(webhookDeliveries.eventId, eventId),
          // "Retry now": a delivered event is done; one in flight or waiting is moved up.
          delivered ? undefined : sql`${webhookDeliveries.status} <> 'succeeded'`,
        ),
      )
      .returning({ id: webhookDeliveries.id, attempts: webhookDeliveries.attempts });
    if (!delivery)
      throw delivered
        ? new CoreError("not_found", `No delivery of ${eventId} for this agent`)
        : new CoreError("conflict", "This event was delivered already, or is not this agent's");
    await enqueueRetryDrain(tx, agentId, delivery.id, now);
    return { status: "pending" as const, attempt: delivery.attempts + 1 };
  });
}
