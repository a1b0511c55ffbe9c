import { captureLogs, createAgent, createRecord, createUser, readEvents } from "@switchboard/core";
import { createTestDeps, enqueueJob, newId } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startJobRunner } from "./runner";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const pendingJobs = async () =>
  Number(
    (
      await t.deps
        .sql`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'maintenance_cleanup'`
    )[0]?.n,
  );

it("a job commits with its transaction: rolled back, it never exists; committed, the worker runs it", async () => {
  t.clock.set("2026-05-01T12:00:00Z");
  const old = new Date("2026-04-20T00:00:00Z");
  await t.deps.db
    .insert(schema.rateCounters)
    .values({ key: "requests:agt_x", windowStart: old, count: 3 });

  await t.deps.db
    .transaction(async (tx) => {
      await enqueueJob(tx, "maintenance_cleanup", {});
      throw new Error("roll back");
    })
    .catch(() => {});
  expect(await pendingJobs()).toBe(0);

  await t.deps.db.transaction((tx) => enqueueJob(tx, "maintenance_cleanup", {}));
  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    for (let i = 0; i < 100; i++) {
      const left = await t.deps.db.execute(sql`select count(*)::int as n from rate_counters`);
      if (Number(left[0]?.n) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const left = await t.deps.db.execute(sql`select count(*)::int as n from rate_counters`);
    expect(Number(left[0]?.n)).toBe(0);
  } finally {
    await runner.stop();
  }
});

it("a due timer survives the worker being down: the next worker fires task.due when it starts", async () => {
  const person = await createUser(t.deps, {});
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Due",
    requestedScopes: ["tasks:read"],
  });
  const now = new Date();
  const conversationId = newId("cnv");
  await t.deps.db.insert(schema.conversations).values({
    id: conversationId,
    kind: "direct",
    memberKey: `${agent.id}:${person.id}`,
    createdAt: now,
  });
  await t.deps.db.insert(schema.agentContacts).values({
    userId: person.id,
    agentId: agent.id,
    conversationId,
    addedAt: now,
    grantedScopes: ["tasks:read"],
    createdAt: now,
    updatedAt: now,
  });
  // Due in a second; no worker is running when it comes due.
  await createRecord(t.deps, person.id, "task", {
    title: "Soon",
    dueDate: new Date(Date.now() + 1000).toISOString(),
  });
  await new Promise((r) => setTimeout(r, 1500));
  expect((await readEvents(t.deps, agent.id, 0, 10)).events).toEqual([]);

  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    let events: { type: string }[] = [];
    for (let i = 0; i < 50 && events.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      events = (await readEvents(t.deps, agent.id, 0, 10)).events;
    }
    expect(events.map((e) => e.type)).toEqual(["task.due"]);
  } finally {
    await runner.stop();
  }
});

it("runs a job only with a payload its registry entry accepts; a malformed one fails with the reason", async () => {
  const [added] = await t.deps.sql`
    select id from graphile_worker.add_job('action_expire', '{"actionId": 42}'::json, max_attempts => 1)`;
  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    let error: string | null = null;
    for (let i = 0; i < 100 && !error; i++) {
      const [job] = await t.deps
        .sql`select last_error from graphile_worker.jobs where id = ${added?.id as string}`;
      error = (job?.last_error as string | null) ?? null;
      if (!error) await new Promise((r) => setTimeout(r, 100));
    }
    expect(error).toMatch(/actionId/);
  } finally {
    await runner.stop();
  }
});

it("a failed job's error is kept and logged without the query parameters it carried", async () => {
  const secret = "secret-payload-text";
  await enqueueJob(t.deps.db, "action_expire", { actionId: `${secret}\u0000` });
  const lines: string[] = [];
  const restore = captureLogs(lines);
  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    let lastError: string | null = null;
    for (let i = 0; i < 100 && !lastError; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const [job] = await t.deps.sql`
        select last_error from graphile_worker.jobs
        where task_identifier = 'action_expire' and last_error like 'DrizzleQueryError%'`;
      lastError = (job?.last_error as string | null) ?? null;
    }
    expect(lastError).toContain("DrizzleQueryError: Failed query");
    expect(lastError).not.toContain(secret);
    // The failure was logged, without the parameter.
    expect(lines.join("\n")).toContain("DrizzleQueryError");
    expect(lines.join("\n")).not.toContain(secret);
  } finally {
    restore();
    await runner.stop();
  }
});
