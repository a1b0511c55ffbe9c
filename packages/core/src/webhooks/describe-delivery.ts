import type { WebhookDelivery } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { readVisibleEvent } from "../events/event-visibility";
import { explainDeliveryError } from "./explain-delivery-error";

const { webhookDeliveries } = schema;

/** One event's delivery in full, for the detail panel of the owner's webhook page. */
export interface WebhookDeliveryDetail extends WebhookDelivery {
  /**
   * The latest attempt's request: the headers it sent (null before the first) and the body as
   * the agent may see the event now (masked or null as the person's current grants say).
   */
  request: { headers: Record<string, string> | null; body: string | null };
  /** The receiver's answer to the latest attempt. */
  response: { httpStatus: number | null; excerpt: string | null };
  attemptedAt: string | null;
  /** What went wrong, in words (null when nothing did). */
  problem: string | null;
}

/** The delivery of one of the agent's events, with what was sent and what came back. */
export async function getWebhookDeliveryDetail(
  deps: CoreDeps,
  agentId: string,
  eventId: string,
): Promise<WebhookDeliveryDetail> {
  const [delivery] = await deps.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.agentId, agentId), eq(webhookDeliveries.eventId, eventId)));
  if (!delivery) throw new CoreError("not_found", `No delivery of ${eventId} for this agent`);
  // The owner reads exactly what the agent may read of the event now, never the stored payload.
  const event = await readVisibleEvent(deps.db, agentId, eventId);
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    eventId: delivery.eventId,
    eventSeq: delivery.eventSeq,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    httpStatus: delivery.httpStatus,
    latencyMs: delivery.latencyMs,
    error: delivery.error,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
    request: {
      headers: delivery.requestHeaders ?? null,
      body: event && JSON.stringify(event, null, 2),
    },
    response: { httpStatus: delivery.httpStatus, excerpt: delivery.responseExcerpt },
    attemptedAt: iso(delivery.attemptedAt),
    problem:
      delivery.status === "succeeded"
        ? null
        : explainDeliveryError(delivery.error, delivery.httpStatus),
  };
}
