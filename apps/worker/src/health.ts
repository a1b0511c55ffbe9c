import { createServer, type Server } from "node:http";
import { type CoreDeps, checkHealth } from "@switchboard/core";

/** The worker's HTTP side: /healthz now; the WebSocket stream upgrades on the same server. */
export function createWorkerServer(deps: CoreDeps): Server {
  return createServer(async (request, response) => {
    if (request.method === "GET" && request.url === "/healthz") {
      const health = await checkHealth(deps);
      response.writeHead(health.status === "ok" ? 200 : 503, {
        "Content-Type": "application/json",
      });
      response.end(JSON.stringify(health));
      return;
    }
    response.writeHead(404, { "Content-Type": "application/json" });
    response.end(JSON.stringify({ error: { code: "not_found", message: "No such endpoint" } }));
  });
}
