import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "./deps";
import { newSecret } from "./secrets";

const { instanceSettings } = schema;

/**
 * The secret that signs console sessions: AUTH_SECRET. `npm start` always sets it (kept in
 * .data/keys.json, apps/cli/src/start/keys.ts) and the production roles refuse to start without
 * it; only a process started bare (tests) falls back to one generated and kept in the database.
 */
export async function ensureAuthSecret(deps: CoreDeps): Promise<string> {
  return deps.config.AUTH_SECRET ?? (keptSecret(deps, "auth_secret", true) as Promise<string>);
}

/**
 * The key material that seals secrets kept at rest (webhook signing secrets): SECRETS_KEY, set
 * like AUTH_SECRET (only a bare process falls back to one kept in the database). `previous` is a
 * key an earlier version kept in the database, so values sealed under it still open (and are
 * sealed again).
 */
export async function secretsKeyMaterial(
  deps: CoreDeps,
): Promise<{ current: string; previous: string | null }> {
  if (deps.config.SECRETS_KEY)
    return {
      current: deps.config.SECRETS_KEY,
      previous: await keptSecret(deps, "secrets_key", false),
    };
  return { current: (await keptSecret(deps, "secrets_key", true)) as string, previous: null };
}

/** An instance-wide secret kept in `instance_settings`, made on first use when `create`. */
async function keptSecret(deps: CoreDeps, key: string, create: boolean): Promise<string | null> {
  if (create)
    await deps.db
      .insert(instanceSettings)
      .values({ key, value: newSecret(""), updatedAt: deps.clock.now() })
      .onConflictDoNothing();
  const [row] = await deps.db
    .select({ value: instanceSettings.value })
    .from(instanceSettings)
    .where(eq(instanceSettings.key, key));
  return (row?.value as string | undefined) ?? null;
}
