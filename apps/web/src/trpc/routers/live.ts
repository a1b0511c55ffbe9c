import { protectedProcedure, router } from "../init";

export const liveRouter = router({
  /**
   * Server-sent wake-ups for the person's open console tabs: one at the start and one per burst
   * of changes to anything they see (messages, typing, reads, reactions, settings, cards,
   * records). The tab re-reads what it shows; the wake-up itself carries nothing.
   */
  changes: protectedProcedure.subscription(async function* ({ ctx, signal }) {
    const stop = signal ?? new AbortController().signal;
    for await (const _ of ctx.deps.notifier.watch(`user:${ctx.user.id}`, stop))
      yield { at: Date.now() };
  }),
});
