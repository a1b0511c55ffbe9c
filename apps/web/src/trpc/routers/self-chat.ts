import { listSelfMessages } from "@switchboard/core";
import { protectedProcedure, router } from "../init";

/** The signed-in person's self chat, as the Developer API fills it (newest last). */
export const selfChatRouter = router({
  list: protectedProcedure.query(({ ctx }) => listSelfMessages(ctx.deps, ctx.user.id)),
});
