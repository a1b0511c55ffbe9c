import { describe, expect, it } from "vitest";
import { normalizeAgentNumber } from "./agent-number";
import { sentence, shownError } from "./errors";
import { linkParts } from "./link-parts";
import { editChanges, humanize, skillWords, valueTree } from "./proposal-words";
import { safeReturnPath, signInPath } from "./return-to";

describe("linkParts", () => {
  it("links http and https addresses only, without the sentence's punctuation", () => {
    expect(linkParts("See https://example.com/a?b=1. Or http://x.org/(y), fine")).toEqual([
      { text: "See " },
      { text: "https://example.com/a?b=1", href: "https://example.com/a?b=1" },
      { text: ". Or " },
      { text: "http://x.org/(y", href: "http://x.org/(y" },
      { text: "), fine" },
    ]);
    for (const text of ["javascript:alert(1)", "data:text/html,x", "ftp://x.org", "JaVaScRiPt:x"])
      expect(linkParts(text)).toEqual([{ text }]);
  });
});

describe("safeReturnPath", () => {
  it("keeps a path on this site and drops anything that could leave it", () => {
    expect(safeReturnPath("/chats/cnv_1?x=y#z")).toBe("/chats/cnv_1?x=y#z");
    for (const bad of [
      "https://evil.example/",
      "//evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      "",
      null,
      "chats",
    ])
      expect(safeReturnPath(bad)).toBeNull();
    expect(signInPath("/agents")).toBe("/signin?callbackUrl=%2Fagents");
    expect(signInPath("/")).toBe("/signin");
  });
});

describe("normalizeAgentNumber", () => {
  it("reads an agent number however it is typed", () => {
    for (const typed of ["800382304", " 800-382-304 ", "800 382 304", "800.382.304"])
      expect(normalizeAgentNumber(typed)).toBe("800-382-304");
    expect(normalizeAgentNumber(" agt_123 ")).toBe("agt_123");
    expect(normalizeAgentNumber("80038230")).toBe("80038230");
  });
});

describe("error copy", () => {
  it("writes sentences that say what to do next", () => {
    expect(sentence("must not be empty")).toBe("Must not be empty.");
    expect(sentence("Already a sentence!")).toBe("Already a sentence!");
    expect(shownError(new Error("Failed to fetch"))?.message).toBe(
      "Couldn't reach Switchboard. Check your connection and try again.",
    );
    const internal = Object.assign(new Error("boom"), { data: { code: "internal_error" } });
    expect(shownError(internal)?.message).toBe(
      "Something went wrong on our side. Try again in a moment.",
    );
    const limited = Object.assign(new Error("Too many messages"), {
      data: { code: "rate_limited", retryAfterSeconds: 12 },
    });
    expect(shownError(limited)?.message).toBe("Too many messages. Try again in 12 s.");
    const invalid = Object.assign(new Error("The request failed validation"), {
      data: {
        code: "validation_error",
        issues: [{ path: "change.displayName", message: "must not be empty" }],
      },
    });
    expect(shownError(invalid)?.message).toBe("Display name must not be empty.");
    expect(shownError(invalid, ["change.displayName"])?.fields).toEqual({
      "change.displayName": "must not be empty",
    });
  });
});

describe("proposal words", () => {
  it("never shows raw keys, JSON or UTC", () => {
    const words = skillWords("create_task", {
      title: "Buy milk",
      dueDate: "2030-11-29T09:00:00Z",
      priority: "high",
    });
    expect(words.kind).toBe("New task");
    expect(words.summary).toMatch(/^Task · due .+ · high priority$/);
    expect(words.rows.map((r) => r.label)).toEqual(["Title", "Due", "Priority"]);
    expect(JSON.stringify(words)).not.toMatch(/dueDate|T09:00|Z"/);
  });

  it("names the target of a change card as it is now, and a missing one plainly", () => {
    const target = { type: "task" as const, archived: false, record: { title: "Buy milk" } };
    expect(skillWords("delete_task", { id: "tsk_1" }, target).summary).toBe(
      "Task · Deletes “Buy milk”",
    );
    expect(skillWords("complete_task", { id: "tsk_1" }, { ...target, record: null }).summary).toBe(
      "Task · Marks done a task that no longer exists",
    );
    const update = skillWords("update_task", { id: "tsk_1", title: "Buy oat milk" }, target);
    expect(update.rows).toEqual([{ label: "Title", value: "Buy oat milk", before: "Buy milk" }]);
  });

  it("turns nested custom payloads into rows and lists", () => {
    expect(valueTree({ orderId: 7, items: ["a", "b"], gift: false, note: null })).toEqual({
      kind: "rows",
      rows: [
        { label: "Order id", value: { kind: "text", text: "7" } },
        { label: "Items", value: { kind: "text", text: "a, b" } },
        { label: "Gift", value: { kind: "text", text: "no" } },
        { label: "Note", value: { kind: "text", text: "none" } },
      ],
    });
    expect(humanize("deliver_by")).toBe("Deliver by");
    expect(
      editChanges("create_note", { content: "a", title: "t" }, { content: "b", title: "t" }),
    ).toEqual([{ label: "Text", before: "a", value: "b" }]);
  });
});
