import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  agentSigningSecrets,
  createAgent,
  createUser,
  loadConfig,
  putWebhook,
} from "@switchboard/core";
import { createTestDeps, TEST_KEYS } from "@switchboard/core/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceKeys, keysFile } from "./keys";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
});
afterAll(() => t.close());

const vapidPair = {
  VAPID_PUBLIC_KEY: TEST_KEYS.VAPID_PUBLIC_KEY,
  VAPID_PRIVATE_KEY: TEST_KEYS.VAPID_PRIVATE_KEY,
};
const url = () => t.config.DATABASE_URL as string;
const kept = async () =>
  (
    await t.deps.db.execute<{ key: string }>(
      sql`select key from instance_settings where key in ('auth_secret', 'secrets_key') order by key`,
    )
  ).map((row) => row.key);

const legacyRows = (rows: Record<string, string>) =>
  t.deps.db.execute(sql`insert into instance_settings (key, value, updated_at)
    select key, to_jsonb(value), now() from jsonb_each_text(${JSON.stringify(rows)}::jsonb) as r(key, value)`);

describe("npm start's keys", () => {
  it("are generated into a 0600 file under the data directory, never the database, and kept across starts", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "keys-"));
    const first = await instanceKeys(dir, url(), {});
    expect(first.AUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(first.SECRETS_KEY.length).toBeGreaterThanOrEqual(32);
    expect(first.AUTH_SECRET).not.toBe(first.SECRETS_KEY);
    // A VAPID pair: an uncompressed P-256 point and its 32-byte private key.
    expect(Buffer.from(first.VAPID_PUBLIC_KEY, "base64url")).toHaveLength(65);
    expect(Buffer.from(first.VAPID_PRIVATE_KEY, "base64url")).toHaveLength(32);
    expect(statSync(keysFile(dir)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(keysFile(dir), "utf8"))).toEqual(first);
    expect(await kept()).toEqual([]);
    // The processes take them as configuration (loadConfig accepts them).
    expect(() => loadConfig({ DATABASE_URL: url(), ...first })).not.toThrow();
    expect(await instanceKeys(dir, url(), {})).toEqual(first);
  });

  it("move keys an earlier version kept in the database into the file, and delete them there", async () => {
    // What an earlier version left: both keys generated into instance_settings.
    await legacyRows({ auth_secret: "a".repeat(43), secrets_key: "s".repeat(43) });
    expect(await kept()).toEqual(["auth_secret", "secrets_key"]);

    const dir = mkdtempSync(path.join(tmpdir(), "keys-"));
    const keys = await instanceKeys(dir, url(), {});
    expect(keys).toMatchObject({ AUTH_SECRET: "a".repeat(43), SECRETS_KEY: "s".repeat(43) });
    expect(JSON.parse(readFileSync(keysFile(dir), "utf8"))).toEqual(keys);
    expect(await kept()).toEqual([]);
  });

  it("retire a kept sealing key that differs from the one in use: what it sealed is sealed again, the row deleted", async () => {
    const legacyKey = "k".repeat(43);
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Kept" });
    const underLegacy = { ...t.deps, config: { ...t.deps.config, SECRETS_KEY: legacyKey } };
    const { secret } = await putWebhook(underLegacy, agent.id, "http://127.0.0.1:9/hook");
    await legacyRows({ secrets_key: legacyKey });

    const given = { AUTH_SECRET: "a".repeat(40), SECRETS_KEY: "b".repeat(40), ...vapidPair };
    const dir = mkdtempSync(path.join(tmpdir(), "keys-"));
    expect(await instanceKeys(dir, url(), given)).toEqual(given);
    expect(await kept()).toEqual([]);
    const inUse = { ...t.deps, config: { ...t.deps.config, ...given } };
    expect(await agentSigningSecrets(inUse, agent.id)).toEqual([secret]);
  });

  it("use keys given in the environment as they are, writing none of them", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "keys-"));
    const given = { AUTH_SECRET: "a".repeat(40), SECRETS_KEY: "b".repeat(40), ...vapidPair };
    expect(await instanceKeys(dir, url(), given)).toEqual(given);
    expect(() => statSync(keysFile(dir))).toThrow();
  });

  it("keep a VAPID pair once made: one half given makes no mixed pair", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "keys-"));
    const first = await instanceKeys(dir, url(), {});
    const again = await instanceKeys(dir, url(), { VAPID_PUBLIC_KEY: vapidPair.VAPID_PUBLIC_KEY });
    expect(again.VAPID_PUBLIC_KEY).toBe(first.VAPID_PUBLIC_KEY);
    expect(again.VAPID_PRIVATE_KEY).toBe(first.VAPID_PRIVATE_KEY);
  });
});

describe("the production roles", () => {
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const run = (script: string, env: Record<string, string>) =>
    promisify(execFile)("npm", ["run", "-s", script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it("refuse to start without AUTH_SECRET, SECRETS_KEY and the VAPID pair, naming them", async () => {
    for (const role of ["web", "worker"]) {
      const bare = await run(`start:${role}`, { DATABASE_URL: url() });
      expect(bare.code).toBe(1);
      expect(bare.stderr).toContain(
        `start:${role} needs AUTH_SECRET, SECRETS_KEY, VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY set`,
      );
      const half = await run(`start:${role}`, {
        DATABASE_URL: url(),
        AUTH_SECRET: "a".repeat(40),
        VAPID_PUBLIC_KEY: vapidPair.VAPID_PUBLIC_KEY,
      });
      expect(half.code).toBe(1);
      expect(half.stderr).toContain(`start:${role} needs SECRETS_KEY, VAPID_PRIVATE_KEY set`);
    }
  });
});
