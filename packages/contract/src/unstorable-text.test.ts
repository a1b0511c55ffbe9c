import { describe, expect, it } from "vitest";
import { findUnstorableText } from "./unstorable-text";

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
