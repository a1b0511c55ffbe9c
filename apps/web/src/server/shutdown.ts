import { beginDrain, isDraining, loadConfig, log, watchDatabase } from "@switchboard/core";
import { createDb } from "@switchboard/db";

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

/**
 * A database that is gone for good (dropped, or this role may no longer connect) will not come
 * back by reconnecting: the web process says so once and stops as on SIGTERM.
 */
export function stopWhenDatabaseGone(): void {
  // A connection of its own (one, idle between probes): the request pool stays the pages'.
  const { DATABASE_URL } = loadConfig();
  if (!DATABASE_URL) return;
  watchDatabase(createDb(DATABASE_URL, { max: 1 }), (reason) => {
    log.error(
      { reason },
      "web: the database is gone for good (dropped, or this role may no longer connect); stopping",
    );
    process.kill(process.pid, "SIGTERM");
  });
}
