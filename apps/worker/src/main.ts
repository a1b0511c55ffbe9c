import type { AddressInfo } from "node:net";
import { beginDrain, createDeps, loadConfig, log, watchDatabase } from "@switchboard/core";
import { describeError } from "@switchboard/db";
import { createWorkerServer } from "./health";
import { startJobRunner } from "./jobs/runner";
import { attachStream } from "./stream/server";

/**
 * The worker process: job queue (timers, deliveries, housekeeping) and, on WS_PORT, /healthz
 * and the WebSocket stream. Stateless apart from connections; run as many as you like.
 */
const config = loadConfig();
if (config.WEBHOOK_ALLOW_INSECURE_HOSTS.length > 0)
  log.warn(
    { hosts: config.WEBHOOK_ALLOW_INSECURE_HOSTS },
    "webhooks may use http and private addresses for these hosts (WEBHOOK_ALLOW_INSECURE_HOSTS); never set this in production",
  );
// Each running job may hold a connection, with room left for the stream's reads.
const { deps, close } = createDeps(config, { poolSize: Math.max(10, config.JOB_CONCURRENCY + 4) });
const runner = await startJobRunner(deps, config.DATABASE_URL as string);
const server = createWorkerServer(deps);
const stream = attachStream(server, deps);
server.listen(config.WS_PORT, () =>
  log.info(
    { port: (server.address() as AddressInfo).port },
    `worker listening on :${(server.address() as AddressInfo).port}`,
  ),
);

/**
 * SIGTERM (a deploy, a scale-down): take no new connections, close streams with 1001 so agents
 * reconnect to another worker, let running jobs finish and leave the rest queued for the other
 * workers, then exit, within SHUTDOWN_TIMEOUT_MS at the most.
 */
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  beginDrain();
  log.info({ connections: stream.clients.size }, "worker stopping");
  setTimeout(() => {
    log.warn("worker: shutdown deadline passed; exiting");
    process.exit(code);
  }, config.SHUTDOWN_TIMEOUT_MS).unref();
  for (const client of stream.clients) client.close(1001, "server_shutdown");
  server.close();
  await runner.stop().catch(() => {});
  await close().catch(() => {});
  process.exit(code);
}
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGINT", () => void shutdown(0));
watchDatabase(deps, (reason) => {
  log.error(
    { reason },
    "worker: the database is gone for good (dropped, or this role may no longer connect); stopping",
  );
  void shutdown(1);
});

/**
 * Last resort, for an error no handler caught. One client's failure must not take the stream
 * down for every agent: a connection-level error (a client that vanished mid-write) is logged
 * and the worker keeps serving. Anything else leaves the process in a state nobody planned for,
 * so it stops (cleanly, when it can) and the launcher starts a fresh one. A promise nobody
 * awaited that fails is logged; it has not broken anything that still runs.
 */
const CONNECTION_ERRORS = new Set([
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_STREAM_WRITE_AFTER_END",
]);
process.on("uncaughtException", (error) => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code && CONNECTION_ERRORS.has(code)) {
    log.warn({ code }, "worker: a client connection failed; still serving");
    return;
  }
  log.error({ err: describeError(error) }, "worker: uncaught error; stopping for a restart");
  setTimeout(() => process.exit(1), 10_000).unref();
  void shutdown(1);
});
process.on("unhandledRejection", (reason) => {
  log.error(
    { err: describeError(reason) },
    "worker: a promise failed with no handler; still serving",
  );
});
