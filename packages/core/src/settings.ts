import { schema } from "@switchboard/db";
import { inArray } from "drizzle-orm";
import type { CoreDeps } from "./deps";
import { KeyUnavailableError } from "./errors";
import { log } from "./log";
import { sealStoredWebhookSecrets } from "./webhooks/webhook-config";

const { instanceSettings } = schema;

/**
 * The secret that signs console sessions: AUTH_SECRET. Never generated and never kept in the
 * database: `npm start` keeps it in the data directory's keys file (apps/cli/src/start/keys.ts),
 * the production roles refuse to start without it, tests pass one.
 */
export function authSecret(deps: CoreDeps): string {
  const secret = deps.config.AUTH_SECRET;
  if (!secret)
    throw new KeyUnavailableError("AUTH_SECRET is not set: this process cannot sign sessions");
  return secret;
}

/** The rows where versions before 0063 kept the keys they generated (instance_settings). */
const LEGACY_KEY_ROWS = ["auth_secret", "secrets_key"];

/**
 * Keys an earlier version generated into the database go, at start (decision 0063): every
 * webhook secret sealed under a kept sealing key is sealed again under SECRETS_KEY (whether
 * or not the two are the same key), then the rows are deleted, so a dump never carries a key.
 * Answers the rows deleted. A secret sealed under a key neither kept nor current keeps the rows
 * (and throws): nothing becomes unreadable.
 */
export async function retireKeysKeptInDatabase(deps: CoreDeps): Promise<string[]> {
  const rows = await deps.db
    .select()
    .from(instanceSettings)
    .where(inArray(instanceSettings.key, LEGACY_KEY_ROWS));
  const kept = rows.find((row) => row.key === "secrets_key")?.value;
  await sealStoredWebhookSecrets(deps, typeof kept === "string" ? [kept] : []);
  if (rows.length === 0) return [];
  const gone = await deps.db
    .delete(instanceSettings)
    .where(inArray(instanceSettings.key, LEGACY_KEY_ROWS))
    .returning({ key: instanceSettings.key });
  log.info(
    { keys: gone.map((row) => row.key) },
    "keys kept in the database by an earlier version retired",
  );
  return gone.map((row) => row.key);
}
