import { schema } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { newId } from "../ids";
import { codeOf, createTestDeps } from "../testing";
import { applySkill } from "./apply-skill";
import { fireRecordDue } from "./fire-record-due";
import {
  archiveOwnRecord,
  completeOwnRecord,
  createRecord,
  deleteOwnRecord,
  listOwnRecords,
  updateOwnRecord,
} from "./person-records";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const dueJobs = async (type: string, id: string) =>
  (
    await t.deps.sql`select run_at from graphile_worker.jobs where key = ${`due:${type}:${id}`}`
  ).map((r) => new Date(r.run_at as string).toISOString());

describe("a person's records", () => {
  it("creates each type with exactly the projection fields, lists newest first without archived", async () => {
    const user = await createUser(t.deps, {});
    const task = await createRecord(t.deps, user.num, "task", {
      title: "Call Bob",
      priority: "high",
      dueDate: "2026-02-01T09:00:00+01:00",
    });
    expect(task).toEqual({
      id: expect.stringMatching(/^tsk_/),
      title: "Call Bob",
      description: null,
      dueDate: "2026-02-01T08:00:00.000Z",
      status: "open",
      priority: "high",
      createdAt: expect.any(String),
      completedAt: null,
    });
    expect(
      Object.keys(
        await createRecord(t.deps, user.id, "reminder", {
          title: "R",
          reminderTime: "2026-02-02T09:00:00Z",
        }),
      ).sort(),
    ).toEqual(["createdAt", "id", "isCompleted", "reminderTime", "title"]);
    expect(
      Object.keys(
        await createRecord(t.deps, user.id, "event", {
          title: "E",
          startTime: "2026-02-02T09:00:00Z",
        }),
      ).sort(),
    ).toEqual(["createdAt", "description", "endTime", "id", "location", "startTime", "title"]);
    const note = await createRecord(t.deps, user.id, "note", { content: "n" });
    expect(note).toMatchObject({ title: null, content: "n", type: "text", isPinned: false });

    t.clock.advance(1000);
    const later = await createRecord(t.deps, user.id, "task", { title: "Later" });
    expect((await listOwnRecords(t.deps, user.id, "task")).map((r) => r.id)).toEqual([
      later.id,
      task.id,
    ]);
    await archiveOwnRecord(t.deps, user.id, "task", later.id);
    expect((await listOwnRecords(t.deps, user.id, "task")).map((r) => r.id)).toEqual([task.id]);
    expect(await codeOf(createRecord(t.deps, user.id, "task", { title: "x", color: "red" }))).toBe(
      "validation_error",
    );
  });

  it("updates (null clears), completes and deletes, only on the owner's account", async () => {
    const owner = await createUser(t.deps, {});
    const stranger = await createUser(t.deps, {});
    const task = await createRecord(t.deps, owner.id, "task", {
      title: "T",
      description: "d",
      priority: "low",
    });
    expect(
      await updateOwnRecord(t.deps, owner.id, "task", task.id, {
        description: null,
        priority: null,
        title: "T2",
      }),
    ).toMatchObject({
      title: "T2",
      description: null,
      priority: null,
    });
    const outcome = await t.deps.db.transaction((tx) =>
      applySkill(tx, stranger.id, "complete_task", { id: task.id }, t.clock.now()),
    );
    expect(outcome).toEqual({
      status: "failed",
      recordType: "task",
      error: `No task ${task.id} on the approver's account`,
    });
    expect(await completeOwnRecord(t.deps, owner.id, "task", task.id)).toMatchObject({
      status: "completed",
      completedAt: expect.any(String),
    });
    await deleteOwnRecord(t.deps, owner.id, "task", task.id);
    expect(await listOwnRecords(t.deps, owner.id, "task")).toEqual([]);
    expect(await codeOf(deleteOwnRecord(t.deps, owner.id, "task", task.id))).toBe("not_found");
  });
});

describe("due timers", () => {
  it("follow the record: set on create, moved with the date, gone when completed or deleted", async () => {
    const user = await createUser(t.deps, {});
    const task = await createRecord(t.deps, user.id, "task", {
      title: "Due",
      dueDate: "2026-03-01T10:00:00Z",
    });
    expect(await dueJobs("task", task.id)).toEqual(["2026-03-01T10:00:00.000Z"]);
    await updateOwnRecord(t.deps, user.id, "task", task.id, { dueDate: "2026-03-02T10:00:00Z" });
    expect(await dueJobs("task", task.id)).toEqual(["2026-03-02T10:00:00.000Z"]);
    await updateOwnRecord(t.deps, user.id, "task", task.id, { dueDate: null });
    expect(await dueJobs("task", task.id)).toEqual([]);

    const reminder = await createRecord(t.deps, user.id, "reminder", {
      title: "R",
      reminderTime: "2026-03-01T10:00:00Z",
    });
    expect(await dueJobs("reminder", reminder.id)).toHaveLength(1);
    await completeOwnRecord(t.deps, user.id, "reminder", reminder.id);
    expect(await dueJobs("reminder", reminder.id)).toEqual([]);
    const doomed = await createRecord(t.deps, user.id, "reminder", {
      title: "R",
      reminderTime: "2026-03-01T10:00:00Z",
    });
    await deleteOwnRecord(t.deps, user.id, "reminder", doomed.id);
    expect(await dueJobs("reminder", doomed.id)).toEqual([]);
  });

  it("fire task.due to agents granted tasks:read only, and never for a moved or finished record", async () => {
    const person = await createUser(t.deps, { displayName: "Pat" });
    const owner = await createUser(t.deps, {});
    const reader = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Reader",
      requestedScopes: ["tasks:read"],
    });
    const other = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Other",
      requestedScopes: ["tasks:read"],
    });
    const now = t.clock.now();
    for (const [agentId, scopes] of [
      [reader.id, ["tasks:read"]],
      [other.id, []],
    ] as const) {
      const conversationId = newId("cnv");
      await t.deps.db.insert(schema.conversations).values({
        id: conversationId,
        kind: "direct",
        memberKey: `${agentId}:${person.id}`,
        createdAt: now,
      });
      await t.deps.db.insert(schema.agentContacts).values({
        userId: person.id,
        agentId,
        conversationId,
        addedAt: now,
        grantedScopes: [...scopes],
        createdAt: now,
        updatedAt: now,
      });
    }
    const task = await createRecord(t.deps, person.id, "task", {
      title: "Pay rent",
      dueDate: "2026-04-01T08:00:00Z",
    });
    expect(
      await fireRecordDue(t.deps, { type: "task", id: task.id, at: "2026-03-31T08:00:00Z" }),
    ).toBe(0);
    expect(
      await fireRecordDue(t.deps, { type: "task", id: task.id, at: "2026-04-01T08:00:00Z" }),
    ).toBe(1);
    const [event] = (await readEvents(t.deps, reader.id, 0, 10)).events;
    expect(event).toMatchObject({
      type: "task.due",
      payload: {
        user: { id: person.id, displayName: "Pat", userType: "person" },
        task: { id: task.id, title: "Pay rent" },
      },
    });
    expect((await readEvents(t.deps, other.id, 0, 10)).events).toEqual([]);
    await completeOwnRecord(t.deps, person.id, "task", task.id);
    expect(
      await fireRecordDue(t.deps, { type: "task", id: task.id, at: "2026-04-01T08:00:00Z" }),
    ).toBe(0);
    expect(
      Number((await t.deps.db.execute(sql`select count(*)::int as n from events`))[0]?.n),
    ).toBe(1);
  });
});
