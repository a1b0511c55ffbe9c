import { protectedProcedure, router } from "../init";

export const liveRouter = router({
  /**
   * Server-sent wake-ups for the person's open console tabs: one at the start and one per burst
   * of changes to anything they see (messages, typing, reads, reactions, settings, cards,
   * records, their agents' webhooks and usage). Each names what changed (`chat:<id>`,
   * `webhook:<agentId>`…, ids only), or is `null` for "anything may have changed" (the start, a
   * write that named nothing); the tab re-reads the views of it (decision 0043).
   */
  changes: protectedProcedure.subscription(async function* ({ ctx, signal }) {
    const stop = signal ?? new AbortController().signal;
    for await (const changes of ctx.deps.notifier.watch(`user:${ctx.user.id}`, stop))
      yield { changes };
  }),
});
