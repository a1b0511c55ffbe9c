import { CredentialName } from "@switchboard/contract";
import { listAgentTokens, mintAgentToken, revokeAgentToken } from "@switchboard/core";
import { z } from "zod";
import { ownedAgentProcedure, router } from "../init";

/** An owned agent's API tokens. The raw token is in the mint answer only; core keeps its hash. */
export const tokensRouter = router({
  list: ownedAgentProcedure.query(({ ctx }) => listAgentTokens(ctx.deps, ctx.agent.id)),
  mint: ownedAgentProcedure
    .input(
      z.object({
        expiresAt: z.iso.datetime({ offset: true }).optional(),
        name: CredentialName.or(z.literal("")).optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      mintAgentToken(ctx.deps, ctx.agent.id, {
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : undefined,
        name: input.name,
      }),
    ),
  revoke: ownedAgentProcedure
    .input(z.object({ tokenId: z.string().min(1) }))
    .mutation(({ ctx, input }) =>
      revokeAgentToken(ctx.deps, { tokenId: input.tokenId, agentId: ctx.agent.id }),
    ),
});
