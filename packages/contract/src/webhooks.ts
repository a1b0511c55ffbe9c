import { z } from "zod";
import { DateTime } from "./common";

/** The spec also names `paused`, with no way in or out of it: the service never uses it (decision 0064). */
export const WebhookState = z.enum(["active", "disabled"]);
export type WebhookState = z.infer<typeof WebhookState>;

export const AgentWebhook = z.object({
  url: z.string(),
  state: WebhookState,
  consecutiveFailures: z.number().int(),
  lastDeliveryAt: DateTime.nullable(),
  lastSuccessAt: DateTime.nullable(),
  lastFailureAt: DateTime.nullable(),
  lastError: z.string().nullable(),
  rotationGraceUntil: DateTime.nullable(),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type AgentWebhook = z.infer<typeof AgentWebhook>;

/** The secret (`whsec_…`) is shown once, in the answer to PUT and rotate. */
export const AgentWebhookWithSecret = z.object({ webhook: AgentWebhook, secret: z.string() });
export type AgentWebhookWithSecret = z.infer<typeof AgentWebhookWithSecret>;

/** `PUT /webhook`; the URL rules beyond the length are checked by the service. */
export const PutWebhookRequest = z.strictObject({
  url: z.string().min(1, "required").max(2000, "must be at most 2000 characters"),
});
export type PutWebhookRequest = z.infer<typeof PutWebhookRequest>;

/** One event's delivery, as the owner's console lists it. */
export const WebhookDelivery = z.object({
  eventId: z.string(),
  eventSeq: z.number().int(),
  eventType: z.string(),
  status: z.enum(["pending", "succeeded", "failed", "dead"]),
  attempts: z.number().int(),
  httpStatus: z.number().int().nullable(),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  nextAttemptAt: DateTime.nullable(),
  /** When the event was committed (and its delivery queued). */
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;
