import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runInProcess } from "../testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

it("lists the triggers, each with its flags, when given no event (exit 0)", async () => {
  const { code, stdout, stderr } = await runInProcess(t.config.DATABASE_URL as string, ["trigger"]);
  expect([code, stderr]).toEqual([0, ""]);
  const { triggers } = JSON.parse(stdout) as { triggers: { type: string; usage: string }[] };
  expect(triggers.map((trigger) => trigger.type)).toEqual(
    expect.arrayContaining(["message.received", "action.approved", "task.due"]),
  );
  expect(triggers.find((trigger) => trigger.type === "message.received")?.usage).toMatch(
    /^trigger message\.received --agent AGENT/,
  );
});
