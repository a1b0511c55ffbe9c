import { createServer, type Server } from "node:http";
import {
  type CoreDeps,
  checkHealth,
  checkReadiness,
  metricsAllowed,
  metricsText,
  registerDatabaseMetrics,
} from "@switchboard/core";

/**
 * The worker's HTTP side on WS_PORT: `/healthz` (alive: the database answers), `/readyz` (take
 * traffic: the database has this code's migrations), `/metrics` (Prometheus, behind
 * METRICS_TOKEN when set, with the job queue's depth), and the WebSocket stream upgrades.
 */
export function createWorkerServer(deps: CoreDeps): Server {
  registerDatabaseMetrics(deps);
  return createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, {
        "Content-Type": "application/json",
        "Cache-Control": "no-store",
      });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? "/").split("?")[0];
    if (request.method === "GET" && path === "/healthz") {
      const health = await checkHealth(deps);
      return send(health.status === "ok" ? 200 : 503, health);
    }
    if (request.method === "GET" && path === "/readyz") {
      const readiness = await checkReadiness(deps);
      return send(readiness.status === "ready" ? 200 : 503, readiness);
    }
    if (request.method === "GET" && path === "/metrics") {
      if (!metricsAllowed(deps.config, request.headers.authorization, request.socket.remoteAddress))
        return send(401, {
          error: {
            code: "unauthorized",
            message: "Metrics need Authorization: Bearer <METRICS_TOKEN>",
          },
        });
      const { contentType, body } = await metricsText();
      response.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" });
      return response.end(body);
    }
    send(404, { error: { code: "not_found", message: "No such endpoint" } });
  });
}
