import { instanceStatus } from "@switchboard/core";
import { protectedProcedure, router } from "../init";

/** The service's status as an owner sees it: version, readiness, queue, their failing webhooks. */
export const instanceRouter = router({
  status: protectedProcedure.query(({ ctx }) => instanceStatus(ctx.deps, ctx.user.id)),
});
