import { metricsAllowed, metricsText, registerDatabaseMetrics } from "@switchboard/core";
import { getDeps } from "~/server/deps";
import { errorResponse } from "~/server/responses";

export const dynamic = "force-dynamic";

/** This web process's Prometheus metrics (behind METRICS_TOKEN when set). */
export async function GET(request: Request) {
  if (!metricsAllowed(getDeps().config, request.headers.get("authorization")))
    return errorResponse("unauthorized", "Metrics need Authorization: Bearer <METRICS_TOKEN>");
  registerDatabaseMetrics(getDeps());
  const { contentType, body } = await metricsText();
  return new Response(body, {
    headers: { "Content-Type": contentType, "Cache-Control": "no-store" },
  });
}
