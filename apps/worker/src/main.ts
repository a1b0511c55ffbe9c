import { createServer } from "node:http";
import { checkHealth, createDeps, loadConfig } from "@switchboard/core";

/**
 * The worker process. For now it connects and serves /healthz on WS_PORT; the WebSocket stream,
 * webhook delivery and timers attach here in later issues.
 */
const config = loadConfig();
const { deps, close } = createDeps(config);

const server = createServer(async (request, response) => {
  if (request.method === "GET" && request.url === "/healthz") {
    const health = await checkHealth(deps);
    response.writeHead(health.status === "ok" ? 200 : 503, { "Content-Type": "application/json" });
    response.end(JSON.stringify(health));
    return;
  }
  response.writeHead(404, { "Content-Type": "application/json" });
  response.end(JSON.stringify({ error: { code: "not_found", message: "No such endpoint" } }));
});

server.listen(config.WS_PORT, () => {
  console.log(`worker listening on :${config.WS_PORT}`);
});

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  server.close();
  await close();
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
