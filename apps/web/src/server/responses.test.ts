import { captureLogs } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { toErrorResponse } from "./responses";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

it("logs an unexpected query error without the parameters it carries, and answers 500", async () => {
  const secret = "message text the agent must never see in logs";
  const failure = await t.deps.db.execute(sql`select ${secret}::int`).catch((e: unknown) => e);
  const logged: string[] = [];
  const restore = captureLogs(logged);
  try {
    const response = toErrorResponse(failure, "req_1");
    expect(response.status).toBe(500);
    expect(JSON.stringify(await response.json())).not.toContain(secret);
  } finally {
    restore();
  }
  expect(logged.map((line) => JSON.parse(line))).toContainEqual(
    expect.objectContaining({
      requestId: "req_1",
      msg: "unexpected error",
      err: expect.stringMatching(/^DrizzleQueryError/),
    }),
  );
  expect(logged.join("\n")).not.toContain(secret);
});
