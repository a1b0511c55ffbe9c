import { createServer, type Server } from "node:http";
import {
  type CoreDeps,
  checkHealth,
  checkReadiness,
  metricsRefusal,
  metricsText,
  proxiedClient,
  registerDatabaseMetrics,
} from "@switchboard/core";

/**
 * The worker's HTTP side on WS_PORT: `/healthz` (alive: the database answers), `/readyz` (take
 * traffic: the database has this code's migrations), `/metrics` (Prometheus, with the job queue's
 * depth: as the web's, only to METRICS_TOKEN's Bearer when set, else only to a client on this
 * machine, the client as TRUSTED_PROXIES finds it: a forwarded header counts only from a listed proxy), and the WebSocket stream upgrades.
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
      const { config } = deps;
      const forwarded = request.headers["x-forwarded-for"];
      const client = proxiedClient(
        request.socket.remoteAddress,
        Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
        config.TRUSTED_PROXIES,
      );
      const refusal = metricsRefusal(config, request.headers.authorization, client);
      if (refusal)
        return send(refusal.status, { error: { code: refusal.code, message: refusal.message } });
      const { contentType, body } = await metricsText();
      response.writeHead(200, { "Content-Type": contentType, "Cache-Control": "no-store" });
      return response.end(body);
    }
    send(404, { error: { code: "not_found", message: "No such endpoint" } });
  });
}
