import { DisplayName } from "@switchboard/contract";
import { createUser, getUser } from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, publicProcedure, router } from "../init";

export const authRouter = router({
  /** Creates a person account (with a fresh number); the page then signs in. */
  signUp: publicProcedure
    .input(
      z.object({
        displayName: DisplayName,
        email: z.string().min(3).max(320),
        password: z.string().min(8).max(200),
      }),
    )
    .mutation(({ ctx, input }) => createUser(ctx.deps, input)),
  me: protectedProcedure.query(({ ctx }) => getUser(ctx.deps, ctx.user.id)),
});
