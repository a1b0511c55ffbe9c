import { setMaxListeners } from "node:events";

/**
 * A process that has been asked to stop (SIGTERM) drains: it finishes what it is doing but
 * parks nothing new, and answers parked long-polls at once (with what they have, often nothing:
 * the agent polls again and reaches a process that is staying). Readiness reports not_ready so a
 * load balancer sends no more traffic.
 *
 * One state per process, kept on globalThis: Next may load this module more than once.
 */
const holder = globalThis as typeof globalThis & { __switchboardDrain?: AbortController };

function draining(): AbortController {
  if (!holder.__switchboardDrain) {
    holder.__switchboardDrain = new AbortController();
    // Every parked long-poll listens for the drain, and stops listening when it ends: as many
    // listeners as parked polls is no leak, so no warning past ten.
    setMaxListeners(0, holder.__switchboardDrain.signal);
  }
  return holder.__switchboardDrain;
}

/** Aborted once the process begins to drain. */
export function drainSignal(): AbortSignal {
  return draining().signal;
}

export function beginDrain(): void {
  draining().abort();
}

export function isDraining(): boolean {
  return draining().signal.aborted;
}

/** Tests only: the process serves again (test files share their worker's modules). */
export function endDrain(): void {
  holder.__switchboardDrain = undefined;
}
