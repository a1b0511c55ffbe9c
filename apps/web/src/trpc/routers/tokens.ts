import {
  getOwnedAgent,
  listAgentTokens,
  mintAgentToken,
  revokeAgentToken,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

const AgentRef = z.object({ agentId: z.string().min(1) });

/** An owned agent's tokens. The raw token is in the mint answer only. */
export const tokensRouter = router({
  list: protectedProcedure.input(AgentRef).query(async ({ ctx, input }) => {
    await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId);
    return listAgentTokens(ctx.deps, input.agentId);
  }),
  mint: protectedProcedure
    .input(AgentRef.extend({ expiresAt: z.iso.datetime({ offset: true }).optional() }))
    .mutation(async ({ ctx, input }) => {
      await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId);
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : undefined;
      return mintAgentToken(ctx.deps, input.agentId, { expiresAt });
    }),
  revoke: protectedProcedure
    .input(AgentRef.extend({ tokenId: z.string().min(1) }))
    .mutation(async ({ ctx, input }) => {
      await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId);
      await revokeAgentToken(ctx.deps, { tokenId: input.tokenId, agentId: input.agentId });
    }),
});
