import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

it("lists the triggers, each with its flags, when given no event (exit 0)", async () => {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", main, "trigger"],
    { env: { ...process.env, DATABASE_URL: t.config.DATABASE_URL } },
  );
  expect(stderr).toBe("");
  const { triggers } = JSON.parse(stdout) as { triggers: { type: string; usage: string }[] };
  expect(triggers.map((trigger) => trigger.type)).toEqual(
    expect.arrayContaining(["message.received", "action.approved", "task.due"]),
  );
  expect(triggers.find((trigger) => trigger.type === "message.received")?.usage).toMatch(
    /^trigger message\.received --agent AGENT/,
  );
});
