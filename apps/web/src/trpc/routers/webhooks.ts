import {
  deleteWebhook,
  explainDeliveryError,
  getWebhook,
  getWebhookDeliveryDetail,
  listWebhookDeliveries,
  putWebhook,
  resumeWebhook,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTestEvent,
} from "@switchboard/core";
import { z } from "zod";
import { ownedAgentProcedure, router } from "../init";

const event = z.object({ eventId: z.string().min(1) });

/** An owned agent's webhook, as the owner watches and manages it (the same core as the API). */
export const webhooksRouter = router({
  /** The webhook, its newest deliveries, and each failure in words. */
  get: ownedAgentProcedure.query(async ({ ctx }) => {
    const webhook = await getWebhook(ctx.deps, ctx.agent.id);
    const deliveries = await listWebhookDeliveries(ctx.deps, ctx.agent.id, 50);
    return {
      agent: { id: ctx.agent.id, num: ctx.agent.num, displayName: ctx.agent.displayName },
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
});
