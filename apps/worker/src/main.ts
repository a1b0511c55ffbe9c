import { createDeps, loadConfig } from "@switchboard/core";
import { createWorkerServer } from "./health";
import { startJobRunner } from "./jobs/runner";
import { attachStream } from "./stream/server";

/**
 * The worker process: job queue (timers, deliveries, housekeeping) and, on WS_PORT, /healthz
 * and the WebSocket stream. Stateless apart from connections; run as many as you like.
 */
const config = loadConfig();
if (config.WEBHOOK_ALLOW_INSECURE_HOSTS.length > 0)
  console.warn(
    `WARNING: webhooks may use http and private addresses for ${config.WEBHOOK_ALLOW_INSECURE_HOSTS.join(", ")} (WEBHOOK_ALLOW_INSECURE_HOSTS); never set this in production`,
  );
const { deps, close } = createDeps(config);
const runner = await startJobRunner(deps, config.DATABASE_URL as string);
const server = createWorkerServer(deps);
const stream = attachStream(server, deps);
server.listen(config.WS_PORT, () => console.log(`worker listening on :${config.WS_PORT}`));

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  for (const client of stream.clients) client.close(1001, "server_shutdown");
  server.close();
  await runner.stop();
  await close();
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
