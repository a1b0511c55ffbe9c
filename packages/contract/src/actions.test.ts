import { describe, expect, it } from "vitest";
import {
  AgentAction,
  type AgentPlatformSkill,
  AgentProposeActionRequest,
  RejectionInput,
  skillPayloads,
} from "./actions";
import { platformSkills, skillFields, skillRecordType, skillScope } from "./vocabulary";

const at = "2026-05-01T09:00:00+02:00";
const valid: Record<AgentPlatformSkill, Record<string, unknown>[]> = {
  create_task: [
    { title: "Call Bob" },
    { title: "Call Bob", description: "re: lease", dueDate: at, priority: "high" },
  ],
  create_reminder: [{ title: "Water plants", reminderTime: "2026-05-01T07:00:00Z" }],
  create_event: [
    { title: "Dinner", startTime: at },
    { title: "Dinner", description: "d", startTime: at, endTime: at, location: "Home" },
  ],
  create_note: [{ content: "remember" }, { title: "T", content: "remember" }],
  update_task: [
    { id: "t1", title: "New" },
    { id: "t1", description: null, dueDate: null, priority: null },
  ],
  complete_task: [{ id: "t1" }],
  delete_task: [{ id: "t1" }],
  update_reminder: [{ id: "r1", reminderTime: at }],
  complete_reminder: [{ id: "r1" }],
  delete_reminder: [{ id: "r1" }],
  update_event: [{ id: "e1", location: "Office" }],
  delete_event: [{ id: "e1" }],
  update_note: [{ id: "n1", content: "changed" }],
  delete_note: [{ id: "n1" }],
};
const invalid: Record<AgentPlatformSkill, Record<string, unknown>[]> = {
  create_task: [
    {},
    { title: "" },
    { title: "x", priority: "urgent" },
    { title: "x", dueDate: "2026-05-01T09:00:00" },
    { title: "x", owner: "bob" },
  ],
  create_reminder: [{ title: "x" }, { title: "x", reminderTime: "tomorrow" }],
  create_event: [{ title: "x" }, { startTime: at }, { title: "x", startTime: "2026-05-01" }],
  create_note: [{ title: "only a title" }, { content: "" }],
  update_task: [
    { id: "t1" },
    { title: "no id" },
    { id: "t1", title: null },
    { id: "t1", tags: ["a"] },
  ],
  complete_task: [{}, { id: "t1", title: "x" }],
  delete_task: [{ id: "" }],
  update_reminder: [{ id: "r1" }, { id: "r1", reminderTime: null }],
  complete_reminder: [{ id: "r1", extra: 1 }],
  delete_reminder: [{}],
  update_event: [{ id: "e1" }, { id: "e1", description: null }],
  delete_event: [{ id: 7 }],
  update_note: [{ id: "n1" }],
  delete_note: [{ note: "n1" }],
};

describe("skill payload contracts", () => {
  for (const skill of platformSkills) {
    it(`${skill}: accepts its contract and refuses the rest`, () => {
      for (const payload of valid[skill])
        expect(skillPayloads[skill].safeParse(payload).success, JSON.stringify(payload)).toBe(true);
      for (const payload of invalid[skill])
        expect(skillPayloads[skill].safeParse(payload).success, JSON.stringify(payload)).toBe(
          false,
        );
    });
  }

  it("names each skill's payload fields as its schema has them (for forms that load no zod)", () => {
    for (const skill of platformSkills)
      expect(skillFields[skill], skill).toEqual(Object.keys(skillPayloads[skill].shape));
  });

  it("maps skills to their write scope and record type", () => {
    expect(skillScope("create_task")).toBe("tasks:write");
    expect(skillScope("complete_reminder")).toBe("reminders:write");
    expect(skillScope("delete_event")).toBe("events:write");
    expect(skillScope("update_note")).toBe("notes:write");
    expect(skillRecordType("update_event")).toBe("event");
  });
});

describe("AgentProposeActionRequest", () => {
  const base = { to: "123-456-789", kind: "book.table", title: "Book a table" };
  it("takes exactly one of to / conversationId, and kind unless skill", () => {
    expect(AgentProposeActionRequest.safeParse(base).success).toBe(true);
    expect(AgentProposeActionRequest.safeParse({ ...base, conversationId: "cnv_1" }).success).toBe(
      false,
    );
    expect(AgentProposeActionRequest.safeParse({ kind: "k", title: "t" }).success).toBe(false);
    expect(AgentProposeActionRequest.safeParse({ to: base.to, title: "t" }).success).toBe(false);
    expect(
      AgentProposeActionRequest.safeParse({ to: base.to, title: "t", skill: "create_note" })
        .success,
    ).toBe(true);
  });

  it("bounds kind, title, description and payload size", () => {
    const bad = [
      { kind: "Book" },
      { kind: "1book" },
      { kind: `a${"b".repeat(64)}` },
      { title: "" },
      { title: "x".repeat(201) },
      { title: "two\nlines" },
      { description: "d".repeat(2001) },
      { payload: { blob: "x".repeat(16 * 1024) } },
      { payload: [1, 2] },
      { expiresAt: "soon" },
      { skill: "send_money" },
      { extra: true },
    ];
    for (const change of bad)
      expect(
        AgentProposeActionRequest.safeParse({ ...base, ...change }).success,
        JSON.stringify(change).slice(0, 60),
      ).toBe(false);
    expect(
      AgentProposeActionRequest.safeParse({
        ...base,
        kind: `a${"b".repeat(63)}`,
        title: "x".repeat(200),
      }).success,
    ).toBe(true);
  });
});

describe("a rejection's reason", () => {
  it("takes an optional choice and up to 500 characters of text, trimmed", () => {
    expect(RejectionInput.parse({})).toEqual({});
    expect(RejectionInput.parse({ reason: "  not Friday  ", choice: "not_now" })).toEqual({
      reason: "not Friday",
      choice: "not_now",
    });
    expect(RejectionInput.safeParse({ reason: "x".repeat(500) }).success).toBe(true);
    const long = RejectionInput.safeParse({ reason: "x".repeat(501) });
    expect(long.error?.issues[0]).toMatchObject({
      path: ["reason"],
      message: "must be at most 500 characters",
    });
    expect(RejectionInput.safeParse({ choice: "maybe" }).error?.issues[0]?.path).toEqual([
      "choice",
    ]);
    expect(RejectionInput.safeParse({ reason: "a\u0000b" }).success).toBe(false);
    expect(RejectionInput.safeParse({ why: "x" }).success).toBe(false);
  });

  it("is on the agent's action only as a rejection with both fields, possibly null", () => {
    const action = {
      id: "a",
      conversationId: "c",
      userId: "u",
      kind: "k",
      title: "t",
      description: null,
      payload: {},
      editedPayload: null,
      state: "rejected",
      expiresAt: "2026-05-01T09:00:00.000Z",
      createdAt: "2026-05-01T09:00:00.000Z",
      resolvedAt: null,
      skill: null,
      execution: null,
    };
    expect(AgentAction.safeParse(action).success).toBe(true);
    expect(
      AgentAction.safeParse({ ...action, rejection: { reason: null, choice: null } }).success,
    ).toBe(true);
    expect(AgentAction.safeParse({ ...action, rejection: { reason: "no" } }).success).toBe(false);
    expect(
      AgentAction.safeParse({ ...action, rejection: { reason: null, choice: "later" } }).success,
    ).toBe(false);
  });
});
