import { CoreError, decideAuthorization, getOwnedAgent, OAuthError } from "@switchboard/core";
import { headers } from "next/headers";
import { z } from "zod";
import { requestOrigin } from "~/auth/options";
import { protectedProcedure, router } from "../init";

/** The authorization page's answer (decision 0070): Allow for one owned agent, or Deny. */
export const oauthRouter = router({
  decide: protectedProcedure
    .input(
      z.object({
        params: z.record(z.string(), z.string().max(4000)),
        agentId: z.string().min(1).nullable(),
        allow: z.boolean(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      // Another owner's agent is not found, as on every agent procedure (core checks it again).
      if (input.allow) await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId ?? "");
      const origin = requestOrigin(await headers());
      if (!origin) throw new CoreError("validation_error", "The request names no host");
      try {
        const redirectTo = await decideAuthorization(ctx.deps, {
          userId: ctx.user.id,
          params: input.params,
          origin,
          agentId: input.agentId,
          allow: input.allow,
        });
        return { redirectTo };
      } catch (error) {
        if (error instanceof OAuthError) throw new CoreError("validation_error", error.description);
        throw error;
      }
    }),
});
