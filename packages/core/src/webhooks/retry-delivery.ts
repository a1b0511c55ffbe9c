import { schema } from "@switchboard/db";
import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { enqueueRetryDrain } from "./drain-jobs";

const { webhookDeliveries, webhooks } = schema;

/**
 * The owner's "Retry now" on one event: a delivery waiting for its next attempt runs at once,
 * and a dead one gets one more attempt now. The attempt count goes on from where it was, so a
 * manual retry never starts the schedule over: a dead event that fails again stays dead. Only
 * while the webhook is active (a disabled one is resumed first, which retries every dead event).
 */
export async function retryWebhookDelivery(
  deps: CoreDeps,
  agentId: string,
  eventId: string,
): Promise<{ status: "pending" }> {
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
          // A delivered event is done; one in flight or waiting is moved up.
          sql`${webhookDeliveries.status} <> 'succeeded'`,
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (!delivery)
      throw new CoreError("conflict", "This event was delivered already, or is not this agent's");
    await enqueueRetryDrain(tx, agentId, delivery.id, now);
    return { status: "pending" };
  });
}
