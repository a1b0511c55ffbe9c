import {
  AgentScope,
  AgentUpdateMeRequest,
  DecisionCursor,
  DisplayName,
  RequestPrivacy,
} from "@switchboard/contract";
import {
  createAgent,
  getAgentHistory,
  getAgentUsage,
  listAgentDecisions,
  listAgentOverviews,
  MAX_DECISION_PAGE,
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
  /**
   * How people decided the agent's proposals: counts by outcome and a page of decisions, newest
   * first, from `cursor` (the previous page's `next`; an infinite query's page parameter).
   */
  decisions: ownedAgentProcedure
    .input(
      z.object({
        cursor: DecisionCursor.nullish(),
        limit: z.number().int().min(1).max(MAX_DECISION_PAGE).default(20),
      }),
    )
    .query(({ ctx, input }) =>
      listAgentDecisions(ctx.deps, ctx.agent.id, {
        before: input.cursor ?? undefined,
        limit: input.limit,
      }),
    ),
  pause: ownedAgentProcedure.mutation(({ ctx }) => pauseAgent(ctx.deps, ctx.agent.id)),
  resume: ownedAgentProcedure.mutation(({ ctx }) => resumeAgent(ctx.deps, ctx.agent.id)),
});
