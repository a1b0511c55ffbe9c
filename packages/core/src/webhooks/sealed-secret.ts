import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import type { CoreDeps } from "../deps";
import { secretsKeyMaterial } from "../settings";

/**
 * Webhook signing secrets are kept sealed: AES-256-GCM under a key derived (HKDF-SHA256) from
 * SECRETS_KEY or the instance's kept key, bound to the agent (a sealed value moved to another
 * row does not open). Stored form: `sbsec1.<key id>.<base64url iv|tag|ciphertext>`; the key id
 * picks the key, so values sealed under an earlier key still open and are sealed again.
 */

const PREFIX = "sbsec1";

interface Key {
  id: string;
  bytes: Buffer;
}

function deriveKey(material: string): Key {
  const bytes = Buffer.from(hkdfSync("sha256", material, "switchboard", "webhook-secrets", 32));
  return { id: createHash("sha256").update(bytes).digest("hex").slice(0, 8), bytes };
}

/**
 * Derived keys per configuration (a process has one, over one database), looked up once; a
 * failed lookup (database not up yet) is not kept.
 */
const keyCache = new WeakMap<object, Promise<{ current: Key; all: Key[] }>>();

async function keys(deps: CoreDeps): Promise<{ current: Key; all: Key[] }> {
  let found = keyCache.get(deps.config);
  if (!found) {
    found = secretsKeyMaterial(deps).then(({ current, previous }) => {
      const key = deriveKey(current);
      return { current: key, all: previous ? [key, deriveKey(previous)] : [key] };
    });
    keyCache.set(deps.config, found);
    found.catch(() => keyCache.delete(deps.config));
  }
  return found;
}

const aad = (agentId: string) => Buffer.from(`webhook:${agentId}`);

export async function sealSecret(deps: CoreDeps, agentId: string, secret: string): Promise<string> {
  const { current } = await keys(deps);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", current.bytes, iv).setAAD(aad(agentId));
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  const box = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
  return `${PREFIX}.${current.id}.${box}`;
}

/** How every value sealed under the current key starts (others are plain, or under an older key). */
export async function currentSealPrefix(deps: CoreDeps): Promise<string> {
  return `${PREFIX}.${(await keys(deps)).current.id}.`;
}

/** The secret a stored value holds; a value from before sealing is plain text. */
export async function openSecret(deps: CoreDeps, agentId: string, stored: string): Promise<string> {
  const [prefix, keyId, box] = stored.split(".");
  if (prefix !== PREFIX || !keyId || !box) return stored;
  const key = (await keys(deps)).all.find((k) => k.id === keyId);
  if (!key) throw new Error(`a webhook secret is sealed under an unknown key ${keyId}`);
  const bytes = Buffer.from(box, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key.bytes, bytes.subarray(0, 12))
    .setAAD(aad(agentId))
    .setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
}
