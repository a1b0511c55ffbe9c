import { checkHealth } from "@switchboard/core";
import { getDeps } from "~/server/deps";
import { json } from "~/server/responses";

export const dynamic = "force-dynamic";

export async function GET() {
  const health = await checkHealth(getDeps());
  return json(health, health.status === "ok" ? 200 : 503);
}
