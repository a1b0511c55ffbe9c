import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import type { CoreDeps } from "../deps";
import { KeyUnavailableError } from "../errors";

/**
 * Webhook signing secrets are kept sealed: AES-256-GCM under a key derived (HKDF-SHA256) from
 * SECRETS_KEY, bound to the agent (a sealed value moved to another row does not open). Stored
 * form: `sbsec1.<key id>.<base64url iv|tag|ciphertext>`; the key id says which key sealed it,
 * so a value sealed under an earlier key is recognised and opened with it when that key is
 * given (retiring a key an earlier version kept in the database, settings.ts).
 */

const PREFIX = "sbsec1";

interface Key {
  id: string;
  bytes: Buffer;
}

/** Derived keys by key material: HKDF runs once per key a process uses. */
const derived = new Map<string, Key>();

function deriveKey(material: string): Key {
  let key = derived.get(material);
  if (!key) {
    const bytes = Buffer.from(hkdfSync("sha256", material, "switchboard", "webhook-secrets", 32));
    key = { id: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes };
    derived.set(material, key);
  }
  return key;
}

/** The key that seals: SECRETS_KEY. Never generated: without it nothing is sealed or opened. */
function currentKey(deps: CoreDeps): Key {
  const material = deps.config.SECRETS_KEY;
  if (!material)
    throw new KeyUnavailableError(
      "SECRETS_KEY is not set: this process cannot seal or open webhook secrets",
    );
  return deriveKey(material);
}

const aad = (agentId: string) => Buffer.from(`webhook:${agentId}`);

export function sealSecret(deps: CoreDeps, agentId: string, secret: string): string {
  const current = currentKey(deps);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", current.bytes, iv).setAAD(aad(agentId));
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  const box = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
  return `${PREFIX}.${current.id}.${box}`;
}

/** How every value sealed under the current key starts (others are plain, or under another key). */
export function currentSealPrefix(deps: CoreDeps): string {
  return `${PREFIX}.${currentKey(deps).id}.`;
}

/**
 * The secret a stored value holds; a value from before sealing is plain text. `older` is key
 * material a value may also be sealed under (a key being retired).
 */
export function openSecret(
  deps: CoreDeps,
  agentId: string,
  stored: string,
  older: string[] = [],
): string {
  const [prefix, keyId, box] = stored.split(".");
  if (prefix !== PREFIX || !keyId || !box) return stored;
  const key = [currentKey(deps), ...older.map(deriveKey)].find((k) => k.id === keyId);
  if (!key)
    throw new KeyUnavailableError(
      `a webhook secret is sealed under key ${keyId}, not this process's SECRETS_KEY`,
    );
  const bytes = Buffer.from(box, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key.bytes, bytes.subarray(0, 12))
    .setAAD(aad(agentId))
    .setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
}
