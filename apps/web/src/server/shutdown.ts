import { beginDrain, isDraining, loadConfig, log } from "@switchboard/core";

let installed = false;

/**
 * SIGTERM (a deploy, a scale-down) on the web process. Next's own handler stops accepting
 * connections and waits for the requests in flight, then exits; this adds what Next cannot know:
 * parked long-polls answer at once instead of holding the exit for up to their whole wait,
 * /readyz turns not_ready, and the process exits after SHUTDOWN_TIMEOUT_MS whatever is left.
 */
export function drainOnSignal(): void {
  if (installed) return;
  installed = true;
  const { SHUTDOWN_TIMEOUT_MS } = loadConfig();
  const drain = (signal: NodeJS.Signals) => {
    if (isDraining()) return;
    beginDrain();
    log.info({ signal }, "web stopping: finishing requests in flight");
    setTimeout(() => {
      log.warn("web: shutdown deadline passed; exiting");
      process.exit(143);
    }, SHUTDOWN_TIMEOUT_MS).unref();
  };
  process.on("SIGTERM", drain);
  process.on("SIGINT", drain);
}
