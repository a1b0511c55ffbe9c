import { AsyncLocalStorage } from "node:async_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvents } from "../events/append-event";
import { metrics } from "../metrics";
import { beginDrain, endDrain } from "../shutdown";
import { createTestDeps, taggedEvent } from "../testing";
import { pollEvents } from "./poll-events";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
  // The LISTEN connection and every connection of the pool opened outside any request: a socket
  // keeps the async context it was opened in, for as long as it lives. With every connection
  // open, the poll's transactions (its lease) land on connections that then sit idle, as on a
  // loaded server: a finished transaction must leave nothing of its request on its connection
  // (vendor/postgres/transaction-onclose.patch).
  await pollEvents(t.deps, "agt_warm", { afterSeq: 0, limit: 100, wait: 0.05 });
  await Promise.all(
    Array.from({ length: t.deps.sql.options.max }, () => t.deps.sql`select pg_sleep(0.05)`),
  );
});
afterAll(() => t.close());

/**
 * Next.js keeps each request in an AsyncLocalStorage store, so a timer or listener created while
 * the request is answered reaches the request, its response and its body buffers.
 */
const requestContext = new AsyncLocalStorage<{ body: Buffer }>();

/**
 * One long-poll answered as the Agent API answers it: inside its request's context, with the
 * request's signal, which is never aborted when the answer completes normally. Returns a weak
 * reference to the request: once the poll has answered, nothing should keep it alive.
 */
async function pollAsRequest(agentId: string, afterSeq: number, whileParked?: () => Promise<void>) {
  const request = { body: Buffer.alloc(64 * 1024) };
  const signal = new AbortController().signal;
  const polling = requestContext.run(request, () =>
    pollEvents(t.deps, agentId, { afterSeq, limit: 100, wait: 0.3 }, signal),
  );
  await whileParked?.();
  const page = await polling;
  return { page, request: new WeakRef(request) };
}

describe("long-poll", () => {
  it("keeps nothing of a request once it has answered (timed out or woken)", async () => {
    const timedOut = await pollAsRequest("agt_lp_gc", 0);
    expect(timedOut.page.events).toEqual([]);
    const woken = await pollAsRequest("agt_lp_gc", 0, async () => {
      await new Promise((r) => setTimeout(r, 100)); // parked
      await t.deps.db.transaction((tx) =>
        appendEvents(tx, t.clock.now(), [taggedEvent("agt_lp_gc")]),
      );
    });
    expect(woken.page.events).toHaveLength(1);
    // A weak reference keeps its target until the current job ends; then a full collection. A
    // loaded machine may still be finishing the poll's last callbacks: a few tries, a leak
    // keeps it through all of them.
    for (
      let tries = 0;
      tries < 10 && (timedOut.request.deref() || woken.request.deref());
      tries++
    ) {
      await new Promise((r) => setTimeout(r, 50));
      collectGarbage();
    }
    expect(timedOut.request.deref()).toBeUndefined();
    expect(woken.request.deref()).toBeUndefined();
  });

  it("parks many polls at once without a listener warning, and a drain answers them all at once", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const parked = Array.from({ length: 12 }, (_, i) =>
        pollEvents(t.deps, `agt_lp_drain_${i}`, { afterSeq: 0, limit: 100, wait: 20 }),
      );
      while ((await metrics.parkedPolls.get()).values[0]?.value !== 12)
        await new Promise((r) => setTimeout(r, 20));
      const started = performance.now();
      beginDrain();
      const pages = await Promise.all(parked);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(pages.every((page) => page.events.length === 0)).toBe(true);
      expect(warnings).toEqual([]);
    } finally {
      endDrain(); // the next test file runs in this process
      process.off("warning", onWarning);
    }
  });
});
