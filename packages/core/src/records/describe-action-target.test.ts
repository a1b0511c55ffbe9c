import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../identity/users";
import { createTestDeps } from "../testing";
import { describeActionTargets } from "./describe-action-target";
import { archiveOwnRecord, createRecord, deleteOwnRecord } from "./person-records";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const card = (id: string, skill: string | null, payload: Record<string, unknown>) =>
  ({ id, skill, payload }) as Parameters<typeof describeActionTargets>[2][number];

describe("describeActionTargets", () => {
  it("names the person's own record each change card targets, as it is now", async () => {
    const person = await createUser(t.deps, {});
    const other = await createUser(t.deps, {});
    const task = await createRecord(t.deps, person.id, "task", {
      title: "Buy milk",
      priority: "high",
    });
    const note = await createRecord(t.deps, person.id, "note", { title: "Ideas", content: "…" });
    const gone = await createRecord(t.deps, person.id, "reminder", {
      title: "Call mum",
      reminderTime: "2030-01-01T10:00:00Z",
    });
    const theirs = await createRecord(t.deps, other.id, "task", { title: "Their secret" });
    await deleteOwnRecord(t.deps, person.id, "reminder", gone.id);
    await archiveOwnRecord(t.deps, person.id, "note", note.id);

    const targets = await describeActionTargets(t.deps, person.id, [
      card("act_1", "update_task", { id: task.id, title: "Buy oat milk" }),
      card("act_2", "create_task", { title: "New" }),
      card("act_3", "delete_reminder", { id: gone.id }),
      card("act_4", "delete_note", { id: note.id }),
      card("act_5", "complete_task", { id: theirs.id }),
      card("act_6", null, { id: task.id }),
    ]);
    expect(targets).toEqual([
      {
        actionId: "act_1",
        type: "task",
        recordId: task.id,
        record: expect.objectContaining({ title: "Buy milk", priority: "high" }),
        archived: false,
      },
      { actionId: "act_3", type: "reminder", recordId: gone.id, record: null, archived: false },
      {
        actionId: "act_4",
        type: "note",
        recordId: note.id,
        record: expect.objectContaining({ title: "Ideas" }),
        archived: true,
      },
      // Another person's record is never read through someone's card.
      { actionId: "act_5", type: "task", recordId: theirs.id, record: null, archived: false },
    ]);
  });
});
