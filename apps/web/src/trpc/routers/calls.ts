import { listPersonCalls } from "@switchboard/core";
import { protectedProcedure, router } from "../init";

/** The signed-in person's calls: who was on each, their own summary, the shared transcript. */
export const callsRouter = router({
  list: protectedProcedure.query(({ ctx }) => listPersonCalls(ctx.deps, ctx.user.id)),
});
