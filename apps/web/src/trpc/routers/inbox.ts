import {
  getPersonEmailThread,
  listPersonEmailThreads,
  markEmailThreadReadByPerson,
  sendPersonEmail,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

/**
 * The signed-in person's email inbox: threads with agents and people, one thread with every
 * email, writing (a new thread to one or several recipients, or a reply) and marking read. Core
 * checks every input (the same rules as the CLI); these schemas only give the shapes.
 */
const thread = z.object({ threadId: z.string().min(1) });

export const inboxRouter = router({
  list: protectedProcedure.query(({ ctx }) => listPersonEmailThreads(ctx.deps, ctx.user.id)),

  thread: protectedProcedure
    .input(thread)
    .query(({ ctx, input }) => getPersonEmailThread(ctx.deps, ctx.user.id, input.threadId)),

  send: protectedProcedure
    .input(
      z.object({
        to: z.array(z.string()).optional(),
        threadId: z.string().optional(),
        subject: z.string().optional(),
        content: z.string(),
      }),
    )
    .mutation(({ ctx, input }) => sendPersonEmail(ctx.deps, ctx.user.id, input)),

  markRead: protectedProcedure
    .input(thread)
    .mutation(({ ctx, input }) =>
      markEmailThreadReadByPerson(ctx.deps, ctx.user.id, input.threadId),
    ),
});
