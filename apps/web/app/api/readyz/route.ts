import { checkReadiness } from "@switchboard/core";
import { getDeps } from "~/server/deps";
import { json } from "~/server/responses";

export const dynamic = "force-dynamic";

/** Whether this web process should get traffic (a load balancer's check); see checkReadiness. */
export async function GET() {
  const readiness = await checkReadiness(getDeps());
  return json(readiness, readiness.status === "ready" ? 200 : 503);
}
