import { captureLogs } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { createDb } from "@switchboard/db";
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

it("answers 503 unavailable with Retry-After when the database is out of reach", async () => {
  // A Postgres that is restarting refuses connections: nothing listens on its port.
  const unreachable = createDb("postgres://postgres@127.0.0.1:1/switchboard", { max: 1 });
  const failure = await unreachable.db.execute(sql`select 1`).catch((e: unknown) => e);
  await unreachable.close();
  const response = toErrorResponse(failure, "req_2");
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toBe("1");
  expect(await response.json()).toMatchObject({ error: { code: "unavailable" } });

  // A query that is wrong is still the service's fault, not the database's absence.
  const wrong = await t.deps.db.execute(sql`select nope`).catch((e: unknown) => e);
  expect(toErrorResponse(wrong, "req_3").status).toBe(500);
});
