import { sql } from "drizzle-orm";
import type { CoreDeps } from "./deps";

/** `GET /healthz`: ok when the database answers. */
export async function checkHealth(deps: CoreDeps): Promise<{ status: "ok" | "unavailable" }> {
  try {
    await deps.db.execute(sql`select 1`);
    return { status: "ok" };
  } catch {
    return { status: "unavailable" };
  }
}
