import {
  AgentScope,
  AgentUpdateMeRequest,
  DisplayName,
  RequestPrivacy,
} from "@switchboard/contract";
import {
  createAgent,
  getAgentUsage,
  getOwnedAgent,
  listOwnedAgents,
  pauseAgent,
  resumeAgent,
  updateAgentMe,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

const AgentRef = z.object({ agentId: z.string().min(1) });

/** An owner's agents; every procedure on one agent checks ownership first. */
export const agentsRouter = router({
  list: protectedProcedure.query(({ ctx }) => listOwnedAgents(ctx.deps, ctx.user.id)),
  create: protectedProcedure
    .input(
      z.object({
        displayName: DisplayName,
        requestedScopes: z.array(AgentScope),
        requestPrivacy: RequestPrivacy,
      }),
    )
    .mutation(({ ctx, input }) => createAgent(ctx.deps, { ownerId: ctx.user.id, ...input })),
  get: protectedProcedure.input(AgentRef).query(async ({ ctx, input }) => ({
    agent: await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId),
    usage: await getAgentUsage(ctx.deps, input.agentId),
  })),
  update: protectedProcedure
    .input(z.object({ agentId: z.string().min(1), change: AgentUpdateMeRequest }))
    .mutation(async ({ ctx, input }) => {
      await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId);
      return updateAgentMe(ctx.deps, input.agentId, input.change);
    }),
  pause: protectedProcedure.input(AgentRef).mutation(async ({ ctx, input }) => {
    await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId);
    await pauseAgent(ctx.deps, input.agentId);
  }),
  resume: protectedProcedure.input(AgentRef).mutation(async ({ ctx, input }) => {
    await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId);
    await resumeAgent(ctx.deps, input.agentId);
  }),
});
