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
  return deps.config.AUTH_SECRET ?? (keptSecret(deps, "auth_secret", true) as Promise<string>);
}

/**
 * The key material that seals secrets kept at rest (webhook signing secrets): SECRETS_KEY when
 * configured, otherwise one generated on first use and kept in the database like the session
 * secret, so every process agrees without configuration. `previous` is the kept key while
 * SECRETS_KEY is set, so values sealed before it was set still open (and are sealed again).
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
