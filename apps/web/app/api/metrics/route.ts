import { metricsRefusal, metricsText, registerDatabaseMetrics } from "@switchboard/core";
import { clientAddress } from "~/server/client-network";
import { getDeps } from "~/server/deps";
import { errorResponse } from "~/server/responses";

export const dynamic = "force-dynamic";

/**
 * This web process's Prometheus metrics: with METRICS_TOKEN set, only to its Bearer token;
 * without it, only to a client on this machine (the client as TRUSTED_PROXIES finds it).
 */
export async function GET(request: Request) {
  const { config } = getDeps();
  const client = clientAddress(request.headers, config.TRUSTED_PROXIES);
  const refusal = metricsRefusal(config, request.headers.get("authorization"), client);
  if (refusal) return errorResponse(refusal.code, refusal.message);
  registerDatabaseMetrics(getDeps());
  const { contentType, body } = await metricsText();
  return new Response(body, {
    headers: { "Content-Type": contentType, "Cache-Control": "no-store" },
  });
}
