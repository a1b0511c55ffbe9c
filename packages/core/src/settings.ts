import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "./deps";
import { newSecret } from "./secrets";

const { instanceSettings } = schema;

/**
 * The secret that signs console sessions: AUTH_SECRET when configured, otherwise one generated
 * on first boot and kept in the database, so every web process of the instance shares it.
 */
export async function ensureAuthSecret(deps: CoreDeps): Promise<string> {
  if (deps.config.AUTH_SECRET) return deps.config.AUTH_SECRET;
  await deps.db
    .insert(instanceSettings)
    .values({ key: "auth_secret", value: newSecret(""), updatedAt: deps.clock.now() })
    .onConflictDoNothing();
  const [row] = await deps.db
    .select({ value: instanceSettings.value })
    .from(instanceSettings)
    .where(eq(instanceSettings.key, "auth_secret"));
  return row?.value as string;
}
