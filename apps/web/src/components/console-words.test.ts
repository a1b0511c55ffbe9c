import { agentScopes, buildOpenApi, scopeSentence, scopeWords } from "@switchboard/contract";
import { beforeEach, describe, expect, it } from "vitest";
import { normalizeAgentNumber } from "./agent-number";
import { sentence, shownError } from "./errors";
import {
  formatChatTime,
  formatDayLabel,
  formatListTime,
  formatNumber,
  formatTime,
  formatWhen,
  localDayKey,
  writeForReader,
} from "./format";
import { linkParts, mapsUrl } from "./link-parts";
import { editChanges, humanize, rejectionWords, skillWords, valueTree } from "./proposal-words";
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

describe("rejection words", () => {
  it("says a rejection's choice and reason in one line, nothing when none was given", () => {
    expect(rejectionWords({ choice: "never", reason: "I cook myself" })).toBe(
      "Don't suggest this again: I cook myself",
    );
    expect(rejectionWords({ choice: "wrong_details", reason: null })).toBe("Wrong details");
    expect(rejectionWords({ choice: null, reason: "Later" })).toBe("Later");
    expect(rejectionWords({ choice: null, reason: null })).toBeNull();
    expect(rejectionWords(undefined)).toBeNull();
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

describe("scope words", () => {
  it("give every scope one plain sentence, without scope names, sizes or ids", () => {
    expect(Object.keys(scopeWords).sort()).toEqual([...agentScopes].sort());
    for (const scope of agentScopes) {
      const sentence = scopeSentence(scope);
      expect(sentence.length, scope).toBeGreaterThan(8);
      expect(sentence, scope).not.toMatch(/[a-z]+:(read|write)|\d+\s*KB|_/);
    }
  });

  it("say that calls give an agent what everyone on the call said, not only the person", () => {
    const calls = scopeSentence("calls:read");
    expect(calls).toMatch(/anyone/);
    expect(calls).toMatch(/other people/);
    expect(calls).toMatch(/transcript/);
    expect(calls).toMatch(/summary/);
    expect(calls).not.toMatch(/with it\b/);
  });

  it("are the words of the API reference too", () => {
    const description = String(
      (buildOpenApi() as { info: { description: string } }).info.description,
    );
    for (const scope of agentScopes)
      expect(description).toContain(`| \`${scope}\` | ${scopeSentence(scope)} |`);
  });
});

describe("chat times", () => {
  const now = new Date(2026, 10, 26, 19, 40);
  const at = (...parts: [number, number, number, number]) =>
    new Date(2026, parts[0], parts[1], parts[2], parts[3]).toISOString();
  beforeEach(() => writeForReader(true));

  it("read like chat apps: now, minutes, today's time, yesterday, the weekday, the date", () => {
    expect(formatChatTime(at(10, 26, 19, 40), now)).toBe("now");
    expect(formatChatTime(at(10, 26, 19, 35), now)).toBe("5 min");
    expect(formatChatTime(at(10, 26, 8, 5), now)).toMatch(/^0?8[:.]05/);
    expect(formatChatTime(at(10, 25, 18, 2), now)).toMatch(/^Yesterday (18[:.]02|0?6[:.]02\s?PM)$/);
    expect(formatChatTime(at(10, 23, 18, 2), now)).not.toMatch(/2026|Yesterday/);
    expect(formatChatTime(new Date(2025, 0, 3, 9, 0).toISOString(), now)).toMatch(/2025/);
  });

  it("name days in the list and between messages", () => {
    expect(formatListTime(at(10, 25, 18, 2), now)).toBe("Yesterday");
    expect(formatListTime(at(10, 26, 19, 39), now)).toBe("1 min");
    expect(formatDayLabel(at(10, 26, 1, 0), now)).toBe("Today");
    expect(formatDayLabel(at(10, 25, 23, 59), now)).toBe("Yesterday");
    expect(formatDayLabel(at(9, 2, 12, 0), now)).not.toMatch(/2026/);
    expect(formatDayLabel(new Date(2025, 9, 2).toISOString(), now)).toMatch(/2025/);
  });
});

describe("times before the page is hydrated", () => {
  it("are written in UTC and British English, as the server wrote them, whoever reads", () => {
    writeForReader(false);
    const now = new Date("2026-11-27T12:00:00Z");
    expect(formatTime("2026-11-27T02:59:00Z")).toBe("27 Nov 2026, 02:59");
    expect(formatWhen("2026-11-29T10:00:00Z", now)).toBe("Sun 29 Nov, 10:00");
    expect(formatDayLabel("2026-11-26T23:30:00Z", now)).toBe("Yesterday");
    expect(localDayKey("2026-11-26T23:30:00Z")).toBe("2026-11-26");
    expect(formatNumber(1234.5)).toBe("1,234.5");
  });
});

describe("time formats", () => {
  it("are made as they are first used, not as the module loads", async () => {
    const made: unknown[] = [];
    const Real = Intl.DateTimeFormat;
    // Counts the formatters made; each is still the real one.
    Intl.DateTimeFormat = new Proxy(Real, {
      construct(target, args) {
        made.push(args);
        return Reflect.construct(target, args);
      },
    });
    try {
      // A fresh copy of the module (this file's own import has run already).
      const freshCopy: string = "./format?fresh";
      const fresh: typeof import("./format") = await import(/* @vite-ignore */ freshCopy);
      expect(made).toHaveLength(0);
      fresh.writeForReader(false);
      expect(fresh.formatTime("2026-11-27T02:59:00Z")).toBe("27 Nov 2026, 02:59");
      expect(fresh.formatTime("2026-11-28T02:59:00Z")).toBe("28 Nov 2026, 02:59");
      expect(made).toHaveLength(1);
    } finally {
      Intl.DateTimeFormat = Real;
    }
  });
});

describe("mapsUrl", () => {
  it("opens a shared place on OpenStreetMap, and nothing for coordinates that are not one", () => {
    expect(mapsUrl("52.52", "13.405")).toBe(
      "https://www.openstreetmap.org/?mlat=52.520000&mlon=13.405000#map=16/52.520000/13.405000",
    );
    for (const [lat, lon] of [
      ["91", "0"],
      ["0", "-181"],
      ["x", "1"],
      ["1", "Infinity"],
    ] as const)
      expect(mapsUrl(lat, lon)).toBeNull();
  });
});
