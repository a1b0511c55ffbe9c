import {
  AgentScope,
  AgentUpdateMeRequest,
  DisplayName,
  RequestPrivacy,
} from "@switchboard/contract";
import {
  createAgent,
  getAgentHistory,
  getAgentUsage,
  listAgentOverviews,
  pauseAgent,
  resumeAgent,
  updateAgentMe,
} from "@switchboard/core";
import { z } from "zod";
import { ownedAgentProcedure, protectedProcedure, router } from "../init";

/** A person's agents. Procedures on one agent run only for its owner (`ownedAgentProcedure`). */
export const agentsRouter = router({
  /** The person's agents with contacts, last activity and their last 7 days of messages. */
  list: protectedProcedure.query(({ ctx }) => listAgentOverviews(ctx.deps, ctx.user.id)),
  create: protectedProcedure
    .input(
      z.object({
        displayName: DisplayName,
        requestedScopes: z.array(AgentScope),
        requestPrivacy: RequestPrivacy,
      }),
    )
    .mutation(({ ctx, input }) => createAgent(ctx.deps, { ownerId: ctx.user.id, ...input })),
  get: ownedAgentProcedure.query(async ({ ctx }) => ({
    agent: ctx.agent,
    usage: await getAgentUsage(ctx.deps, ctx.agent.id),
  })),
  /** Daily activity over the last `days` UTC days, for the agent page's charts. */
  history: ownedAgentProcedure
    .input(z.object({ days: z.number().int().min(1).max(90).default(14) }))
    .query(({ ctx, input }) => getAgentHistory(ctx.deps, ctx.agent.id, input.days)),
  update: ownedAgentProcedure
    .input(z.object({ change: AgentUpdateMeRequest }))
    .mutation(({ ctx, input }) => updateAgentMe(ctx.deps, ctx.agent.id, input.change)),
  pause: ownedAgentProcedure.mutation(({ ctx }) => pauseAgent(ctx.deps, ctx.agent.id)),
  resume: ownedAgentProcedure.mutation(({ ctx }) => resumeAgent(ctx.deps, ctx.agent.id)),
});
