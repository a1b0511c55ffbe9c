import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createAgent, createUser, putWebhook } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("./main.ts", import.meta.url));
let t: Awaited<ReturnType<typeof createTestDeps>>;
let elsewhere: string;
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
  elsewhere = mkdtempSync(path.join(tmpdir(), "no-instance-"));
});
afterAll(async () => {
  await t.close();
  rmSync(elsewhere, { recursive: true, force: true });
});

/** `switchboard …` as a process, with no keys in its environment; its exit code and output. */
async function cli(env: Record<string, string>, ...args: string[]) {
  const { DATABASE_URL: _url, AUTH_SECRET: _auth, SECRETS_KEY: _key, ...rest } = process.env;
  return promisify(execFile)(process.execPath, ["--import", "tsx", main, ...args], {
    env: { ...rest, SWITCHBOARD_DATA_DIR: elsewhere, ...env },
  }).then(
    ({ stdout }) => ({ code: 0, stdout, error: undefined }),
    (failed: { code: number; stdout: string; stderr: string }) => ({
      code: failed.code,
      stdout: failed.stdout,
      error: JSON.parse(failed.stderr).error as { code: string; message: string },
    }),
  );
}

describe("the CLI without the instance or its keys", () => {
  it("says which data directory it looked in and how to point elsewhere, not an internal error", async () => {
    const run = await cli({}, "user", "create");
    expect(run.code).toBe(1);
    expect(run.error?.code).toBe("instance_not_found");
    expect(run.error?.message).toContain("No running Switchboard found");
    expect(run.error?.message).toContain(elsewhere);
    expect(run.error?.message).toContain("SWITCHBOARD_DATA_DIR");
  });

  it("with the database but not the keys, says where it looked for them, and makes none", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Hooked" });
    await putWebhook(t.deps, agent.id, "http://127.0.0.1:9/hook");
    const database = { DATABASE_URL: t.config.DATABASE_URL as string };

    // Commands that need no key work as ever …
    const made = await cli(database, "user", "create", "--name", "Keyless");
    expect(made.code).toBe(0);
    expect(await cli(database, "webhook", "show", "--agent", agent.num)).toMatchObject({ code: 0 });
    // … one that opens a webhook secret says what is missing and where it looked.
    const run = await cli(database, "listen", "--agent", agent.num, "--forward-to", "http://x/");
    expect(run.code).toBe(1);
    expect(run.error?.code).toBe("keys_not_found");
    expect(run.error?.message).toContain("SECRETS_KEY");
    expect(run.error?.message).toContain(path.join(elsewhere, "keys.json"));
    expect(run.error?.message).toContain("SWITCHBOARD_DATA_DIR");
    expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
  });
});
