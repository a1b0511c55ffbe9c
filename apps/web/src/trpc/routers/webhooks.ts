import { AgentEventType, WebhookDelivery } from "@switchboard/contract";
import {
  countWaitingDeliveries,
  deleteWebhook,
  explainDeliveryError,
  getWebhook,
  getWebhookDeliveryDetail,
  listWebhookAlerts,
  putWebhook,
  readDeliveryLog,
  redeliverWebhookEvent,
  resumeWebhook,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTestEvent,
} from "@switchboard/core";
import { z } from "zod";
import { ownedAgentProcedure, protectedProcedure, router } from "../init";

const event = z.object({ eventId: z.string().min(1).max(100) });

/** Deliveries on one page of the owner's log. */
const DELIVERY_PAGE = 20;

/**
 * The delivery log's view: its filters (one event, a status, an event type) and its page, by
 * event seq (`before`: older than it; `after`: newer; neither: the newest).
 */
const logView = z.object({
  eventId: z.string().trim().max(100).optional(),
  status: WebhookDelivery.shape.status.optional(),
  eventType: AgentEventType.optional(),
  before: z.number().int().positive().optional(),
  after: z.number().int().nonnegative().optional(),
});

/** An owned agent's webhook, as the owner watches and manages it (the same core as the API). */
export const webhooksRouter = router({
  /** The caller's agents whose webhook is failing (half-way to disabled) or off: the banner. */
  alerts: protectedProcedure.query(({ ctx }) => listWebhookAlerts(ctx.deps, ctx.user.id)),
  /**
   * The webhook, a page of its delivery log (filtered; with the cursors of the pages beside it),
   * each failure in words, and how many events "Resume and retry" would send.
   */
  get: ownedAgentProcedure.input(logView).query(async ({ ctx, input }) => {
    const { eventId, status, eventType, before, after } = input;
    const [webhook, log, waiting] = await Promise.all([
      getWebhook(ctx.deps, ctx.agent.id),
      readDeliveryLog(
        ctx.deps,
        ctx.agent.id,
        { ...(eventId && { eventId }), ...(status && { status }), ...(eventType && { eventType }) },
        before !== undefined ? { before } : after !== undefined ? { after } : {},
        DELIVERY_PAGE,
      ),
      countWaitingDeliveries(ctx.deps, ctx.agent.id),
    ]);
    return {
      agent: { id: ctx.agent.id, num: ctx.agent.num, displayName: ctx.agent.displayName },
      waiting,
      webhook: webhook && {
        ...webhook,
        lastProblem: explainDeliveryError(webhook.lastError, null),
      },
      older: log.older,
      newer: log.newer,
      deliveries: log.deliveries.map((delivery) => ({
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
