import {
  getPersonEmailThread,
  listPersonEmailThreads,
  markEmailThreadReadByPerson,
  PERSON_INBOX_PAGE,
  PERSON_THREAD_PAGE,
  sendPersonEmail,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

/**
 * The signed-in person's email inbox: a page of threads with agents and people, one thread with
 * a page of its emails (the cursor of both is an id of the list, decision 0062), writing (a new thread to one or several recipients, or a reply) and marking read. Core
 * checks every input (the same rules as the CLI); these schemas only give the shapes.
 */
const thread = z.object({ threadId: z.string().min(1) });

export const inboxRouter = router({
  list: protectedProcedure
    .input(z.object({ cursor: z.string().nullish() }).optional())
    .query(({ ctx, input }) =>
      listPersonEmailThreads(ctx.deps, ctx.user.id, {
        limit: PERSON_INBOX_PAGE,
        before: input?.cursor ?? undefined,
      }),
    ),

  thread: protectedProcedure
    .input(thread.extend({ cursor: z.string().nullish() }))
    .query(({ ctx, input }) =>
      getPersonEmailThread(ctx.deps, ctx.user.id, input.threadId, {
        limit: PERSON_THREAD_PAGE,
        before: input.cursor ?? undefined,
      }),
    ),

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
