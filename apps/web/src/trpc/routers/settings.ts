import {
  listPushDevices,
  readNotificationSettings,
  removePushSubscription,
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
});
