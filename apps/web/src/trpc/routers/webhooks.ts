import {
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  putWebhook,
  resumeWebhook,
  rotateWebhookSecret,
} from "@switchboard/core";
import { z } from "zod";
import { ownedAgentProcedure, router } from "../init";

/** An owned agent's webhook, as the owner watches and manages it (the same core as the API). */
export const webhooksRouter = router({
  get: ownedAgentProcedure.query(async ({ ctx }) => ({
    webhook: await getWebhook(ctx.deps, ctx.agent.id),
    deliveries: await listWebhookDeliveries(ctx.deps, ctx.agent.id, 50),
  })),
  set: ownedAgentProcedure
    .input(z.object({ url: z.string() }))
    .mutation(({ ctx, input }) => putWebhook(ctx.deps, ctx.agent.id, input.url.trim())),
  rotate: ownedAgentProcedure.mutation(({ ctx }) => rotateWebhookSecret(ctx.deps, ctx.agent.id)),
  resume: ownedAgentProcedure.mutation(({ ctx }) => resumeWebhook(ctx.deps, ctx.agent.id)),
  remove: ownedAgentProcedure.mutation(({ ctx }) => deleteWebhook(ctx.deps, ctx.agent.id)),
});
