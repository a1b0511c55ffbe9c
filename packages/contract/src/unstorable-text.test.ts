import { describe, expect, it } from "vitest";
import { ClientReplyDeltaFrame, ClientReplyStartFrame, ClientTypingFrame } from "./stream";
import { findUnstorableText, StorableText } from "./unstorable-text";

describe("findUnstorableText", () => {
  it("finds NUL and lone surrogates at any depth, keys included, with zod-style paths", () => {
    expect(
      findUnstorableText({
        content: "a\u0000b",
        ok: "fine 😀 \uD83D\uDE00",
        nested: { list: ["x", "\uD800"], "k\u0000": 1, deep: [{ v: "\uDC00tail" }] },
      }),
    ).toEqual([
      { path: "content", message: "must not contain NUL (\\u0000) characters" },
      { path: "nested.list.1", message: "must not contain unpaired UTF-16 surrogates" },
      { path: "nested.k\u0000", message: "must not contain NUL (\\u0000) characters" },
      { path: "nested.deep.0.v", message: "must not contain unpaired UTF-16 surrogates" },
    ]);
    expect(findUnstorableText("\u0000")).toEqual([
      { path: "", message: "must not contain NUL (\\u0000) characters" },
    ]);
  });

  it("passes what can be stored: numbers, booleans, null, paired surrogates, other controls", () => {
    expect(
      findUnstorableText({ a: 1, b: true, c: null, d: ["\t\u0001\uFFFF", "\uDBFF\uDFFF"] }),
    ).toEqual([]);
  });

  it("walks a body nested far deeper than the call stack would allow, reporting a bounded list", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findUnstorableText(deep)).toHaveLength(1);
    expect(findUnstorableText(Array(100).fill("\u0000"))).toHaveLength(20);
  });
});

describe("StorableText", () => {
  it("is the same rule as a zod string, so frames and CLI input refuse what bodies refuse", () => {
    for (const text of ["a\u0000b", "\uD800", "x\uDFFF"]) {
      const issues = StorableText.safeParse(text).error?.issues.map((i) => i.message);
      expect(issues).toEqual(findUnstorableText(text).map((i) => i.message));
    }
    expect(StorableText.safeParse("fine 😀").success).toBe(true);
  });

  it("guards every text field of the stream's client frames", () => {
    const paths = (result: { error?: { issues: { path: PropertyKey[] }[] } }) =>
      result.error?.issues.map((i) => i.path.join("."));
    expect(
      paths(ClientTypingFrame.safeParse({ type: "typing", conversationId: "c\0", typing: true })),
    ).toEqual(["conversationId"]);
    expect(
      paths(ClientReplyStartFrame.safeParse({ type: "reply.start", streamId: "\uD800", to: "1" })),
    ).toEqual(["streamId"]);
    expect(
      paths(ClientReplyStartFrame.safeParse({ type: "reply.start", streamId: "s", to: "1\0" })),
    ).toEqual(["to"]);
    expect(
      paths(ClientReplyDeltaFrame.safeParse({ type: "reply.delta", streamId: "s", text: "a\0" })),
    ).toEqual(["text"]);
  });
});
