import { WebhookDelivery } from "@switchboard/contract";
import {
  countWaitingDeliveries,
  deleteWebhook,
  explainDeliveryError,
  getWebhook,
  getWebhookDeliveryDetail,
  listWebhookAlerts,
  listWebhookDeliveries,
  putWebhook,
  redeliverWebhookEvent,
  resumeWebhook,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTestEvent,
} from "@switchboard/core";
import { z } from "zod";
import { ownedAgentProcedure, protectedProcedure, router } from "../init";

const event = z.object({ eventId: z.string().min(1).max(100) });

/** The delivery log's filters: one event, or one status. */
const logFilter = z.object({
  eventId: z.string().trim().max(100).optional(),
  status: WebhookDelivery.shape.status.optional(),
});

/** An owned agent's webhook, as the owner watches and manages it (the same core as the API). */
export const webhooksRouter = router({
  /** The caller's agents whose webhook is failing (half-way to disabled) or off: the banner. */
  alerts: protectedProcedure.query(({ ctx }) => listWebhookAlerts(ctx.deps, ctx.user.id)),
  /**
   * The webhook, its newest deliveries (filtered by event id or status), each failure in words,
   * and how many events "Resume and retry" would send.
   */
  get: ownedAgentProcedure.input(logFilter).query(async ({ ctx, input }) => {
    const [webhook, deliveries, waiting] = await Promise.all([
      getWebhook(ctx.deps, ctx.agent.id),
      listWebhookDeliveries(ctx.deps, ctx.agent.id, 50, {
        ...(input.eventId && { eventId: input.eventId }),
        ...(input.status && { status: input.status }),
      }),
      countWaitingDeliveries(ctx.deps, ctx.agent.id),
    ]);
    return {
      agent: { id: ctx.agent.id, num: ctx.agent.num, displayName: ctx.agent.displayName },
      waiting,
      webhook: webhook && {
        ...webhook,
        lastProblem: explainDeliveryError(webhook.lastError, null),
      },
      deliveries: deliveries.map((delivery) => ({
        ...delivery,
        problem:
          delivery.status === "succeeded"
            ? null
            : explainDeliveryError(delivery.error, delivery.httpStatus),
      })),
    };
  }),
  delivery: ownedAgentProcedure
    .input(event)
    .query(({ ctx, input }) => getWebhookDeliveryDetail(ctx.deps, ctx.agent.id, input.eventId)),
  set: ownedAgentProcedure
    .input(z.object({ url: z.string() }))
    .mutation(({ ctx, input }) => putWebhook(ctx.deps, ctx.agent.id, input.url.trim())),
  rotate: ownedAgentProcedure.mutation(({ ctx }) => rotateWebhookSecret(ctx.deps, ctx.agent.id)),
  resume: ownedAgentProcedure.mutation(({ ctx }) => resumeWebhook(ctx.deps, ctx.agent.id)),
  remove: ownedAgentProcedure.mutation(({ ctx }) => deleteWebhook(ctx.deps, ctx.agent.id)),
  sendTest: ownedAgentProcedure.mutation(({ ctx }) => sendWebhookTestEvent(ctx.deps, ctx.agent.id)),
  retry: ownedAgentProcedure
    .input(event)
    .mutation(({ ctx, input }) => retryWebhookDelivery(ctx.deps, ctx.agent.id, input.eventId)),
  /** "Resend": the event again, delivered or not, as a new attempt of the same id. */
  redeliver: ownedAgentProcedure
    .input(event)
    .mutation(({ ctx, input }) => redeliverWebhookEvent(ctx.deps, ctx.agent.id, input.eventId)),
});
