import {
  listPushDevices,
  readNotificationSettings,
  removePushSubscription,
  reportPresence,
  updateNotificationSettings,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

/** The person's own settings: what is pushed to their devices, and those devices. */
export const settingsRouter = router({
  notifications: protectedProcedure.query(({ ctx }) =>
    readNotificationSettings(ctx.deps, ctx.user.id),
  ),
  updateNotifications: protectedProcedure
    .input(z.record(z.string(), z.unknown()))
    .mutation(({ ctx, input }) => updateNotificationSettings(ctx.deps, ctx.user.id, input)),
  devices: protectedProcedure.query(({ ctx }) => listPushDevices(ctx.deps, ctx.user.id)),
  removeDevice: protectedProcedure
    .input(z.object({ endpoint: z.string().min(1).max(2000) }))
    .mutation(({ ctx, input }) => removePushSubscription(ctx.deps, ctx.user.id, input)),
  /** A console tab is looked at (visible and focused) or not: agent messages are pushed only while none is. */
  presence: protectedProcedure
    .input(z.object({ tabId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/), visible: z.boolean() }))
    .mutation(({ ctx, input }) =>
      reportPresence(ctx.deps, ctx.user.id, input.tabId, input.visible),
    ),
});
