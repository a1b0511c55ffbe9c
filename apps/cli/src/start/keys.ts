import { createECDH, randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createDeps, loadConfig, retireKeysKeptInDatabase } from "@switchboard/core";
import { createDb } from "@switchboard/db";

/**
 * The keys a Switchboard instance needs: session signing, sealing secrets at rest, and the
 * VAPID pair (RFC 8292) that signs its Web Push requests.
 */
export interface InstanceKeys {
  AUTH_SECRET: string;
  SECRETS_KEY: string;
  VAPID_PUBLIC_KEY: string;
  VAPID_PRIVATE_KEY: string;
}

const SECRETS = ["AUTH_SECRET", "SECRETS_KEY"] as const;
const VAPID = ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"] as const;
const NAMES = [...SECRETS, ...VAPID] as const;
/** Where versions before this file kept each generated key (instance_settings). */
const LEGACY_ROWS = { AUTH_SECRET: "auth_secret", SECRETS_KEY: "secrets_key" } as const;

export const keysFile = (dataDir: string) => path.join(dataDir, "keys.json");

/**
 * The keys `npm start` runs web and worker with: each one set in the environment is used as it
 * is; else the one kept in `<dataDir>/keys.json` (mode 0600); else one generated and kept
 * there. Never in the database: a dump would otherwise hold both the sealed secrets and the key
 * that opens them. A key an earlier version kept in the database (and no file holds yet) is
 * taken into the file, so an existing install keeps its sessions and webhook secrets; then
 * every key row is retired (core `retireKeysKeptInDatabase`: what a kept sealing key sealed is
 * sealed again under the one in use, and the rows are deleted) before web and worker start.
 */
export async function instanceKeys(
  dataDir: string,
  databaseUrl: string,
  env: Partial<Record<string, string>> = process.env,
): Promise<InstanceKeys> {
  const file = keysFile(dataDir);
  const kept = readKeys(file);
  const { sql, close } = createDb(databaseUrl, { max: 1 });
  let legacy: Map<string, unknown>;
  try {
    const rows = await sql<{ key: string; value: unknown }[]>`
      select key, value from instance_settings
      where key in ${sql(Object.values(LEGACY_ROWS))}`;
    legacy = new Map(rows.map((row) => [row.key, row.value]));
  } finally {
    await close();
  }
  const keys = {} as InstanceKeys;
  const toFile: Partial<InstanceKeys> = {};
  for (const name of SECRETS) {
    const given = env[name];
    if (given) {
      keys[name] = given;
      continue;
    }
    const fromDb = legacy.get(LEGACY_ROWS[name]);
    toFile[name] =
      kept[name] ??
      (typeof fromDb === "string" && fromDb.length >= 32
        ? fromDb
        : randomBytes(32).toString("base64url"));
    keys[name] = toFile[name];
  }
  // The VAPID pair goes together: both given, else both kept, else a new pair (push services
  // tie each subscription to the public key, so a kept pair is never replaced).
  if (env.VAPID_PUBLIC_KEY && env.VAPID_PRIVATE_KEY) {
    keys.VAPID_PUBLIC_KEY = env.VAPID_PUBLIC_KEY;
    keys.VAPID_PRIVATE_KEY = env.VAPID_PRIVATE_KEY;
  } else {
    const pair =
      kept.VAPID_PUBLIC_KEY && kept.VAPID_PRIVATE_KEY
        ? { VAPID_PUBLIC_KEY: kept.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: kept.VAPID_PRIVATE_KEY }
        : newVapidKeys();
    Object.assign(keys, pair);
    Object.assign(toFile, pair);
  }
  if (NAMES.some((name) => toFile[name] !== undefined && toFile[name] !== kept[name]))
    writeKeys(file, { ...kept, ...toFile });
  else if (existsSync(file)) chmodSync(file, 0o600);
  if (legacy.size > 0) {
    const { deps, close: closeDeps } = createDeps(
      loadConfig({ ...keys, DATABASE_URL: databaseUrl }),
      { poolSize: 1 },
    );
    try {
      await retireKeysKeptInDatabase(deps);
    } finally {
      await closeDeps();
    }
  }
  return keys;
}

/**
 * The keys kept in the data directory's keys file: what the CLI uses beside `npm start`. An
 * unreadable file gives none (the command that needs one then says where it looked).
 */
export function keptKeys(dataDir: string): Partial<InstanceKeys> {
  try {
    return readKeys(keysFile(dataDir));
  } catch {
    return {};
  }
}

function readKeys(file: string): Partial<InstanceKeys> {
  if (!existsSync(file)) return {};
  const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<Record<string, unknown>>;
  const keys: Partial<InstanceKeys> = {};
  for (const name of NAMES) {
    const value = parsed[name];
    if (typeof value === "string" && value.length >= 32) keys[name] = value;
  }
  return keys;
}

/** A P-256 key pair for VAPID, base64url as browsers and web-push take it (65 and 32 bytes). */
export function newVapidKeys(): Pick<InstanceKeys, "VAPID_PUBLIC_KEY" | "VAPID_PRIVATE_KEY"> {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return {
    VAPID_PUBLIC_KEY: ecdh.getPublicKey("base64url"),
    // A private key with leading zero bytes comes shorter: padded back to its 32.
    VAPID_PRIVATE_KEY: Buffer.concat([Buffer.alloc(32), ecdh.getPrivateKey()])
      .subarray(-32)
      .toString("base64url"),
  };
}

/** Written whole to a 0600 file beside it first, then renamed over: never half a key file. */
function writeKeys(file: string, keys: Partial<InstanceKeys>): void {
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  chmodSync(next, 0o600);
  renameSync(next, file);
}
