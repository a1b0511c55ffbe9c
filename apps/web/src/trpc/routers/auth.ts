import { DisplayName } from "@switchboard/contract";
import { getUser, signUpPerson } from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, publicProcedure, router } from "../init";

/** The sign-up form; core checks the same rules again, these give each field its own message. */
const SignUpRequest = z.object({
  displayName: DisplayName,
  email: z
    .string()
    .trim()
    .pipe(z.email("must be an email address").max(320, "must be at most 320 characters")),
  password: z
    .string()
    .min(8, "must be at least 8 characters")
    .max(200, "must be at most 200 characters"),
});

export const authRouter = router({
  /**
   * Creates a person account with a fresh number; the page then signs in with the same pair.
   * Limited per client network and per email.
   */
  signUp: publicProcedure
    .input(SignUpRequest)
    .mutation(({ ctx, input }) =>
      signUpPerson(ctx.deps, input, { network: ctx.clientNetwork ?? null }),
    ),
  me: protectedProcedure.query(({ ctx }) => getUser(ctx.deps, ctx.user.id)),
});
