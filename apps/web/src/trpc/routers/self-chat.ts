import { listSelfMessages } from "@switchboard/core";
import { protectedProcedure, router } from "../init";

export const selfChatRouter = router({
  list: protectedProcedure.query(({ ctx }) => listSelfMessages(ctx.deps, ctx.user.id)),
});
