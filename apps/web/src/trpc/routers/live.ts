import { z } from "zod";
import { liveStreams } from "~/server/live-streams";
import { protectedProcedure, router } from "../init";

export const liveRouter = router({
  /**
   * Server-sent wake-ups for the person's open console tabs: one at the start and one per burst
   * of changes to anything they see (messages, typing, reads, reactions, settings, cards,
   * records, their agents' webhooks and usage). Each names what changed (`chat:<id>`,
   * `webhook:<agentId>`…, ids only), or is `null` for "anything may have changed" (the start, a
   * write that named nothing); the tab re-reads the views of it (decision 0043).
   *
   * `since` is when the tab's data was read (the server render of its first page): the start's
   * wake-up is left out when nothing changed for the person since, so a page rendered with its
   * data does not read it all again as it connects.
   */
  changes: protectedProcedure
    .input(z.object({ since: z.number().int().nonnegative().optional() }).optional())
    .subscription(async function* ({ ctx, input, signal }) {
      // Counted per session and person; the oldest over a cap is closed (it ends here).
      const lease = liveStreams.admit(ctx.user.id, ctx.user.sessionId ?? "", signal);
      try {
        for await (const changes of ctx.deps.notifier.watch(
          `user:${ctx.user.id}`,
          lease.signal,
          input?.since,
        ))
          yield { changes };
      } finally {
        lease.release();
      }
    }),
});
