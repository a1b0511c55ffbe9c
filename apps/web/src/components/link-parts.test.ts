import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linkParts, withoutTrailingPunctuation } from "./link-parts";

/** The regex the scan replaced: same answers on every input, but quadratic on long runs. */
const OLD_TRAILING = /[.,;:!?)\]}'"»”’]+$/;
const oldWithout = (s: string) => s.slice(0, s.length - (OLD_TRAILING.exec(s)?.[0].length ?? 0));

describe("trailing punctuation", () => {
  it("strips exactly what the old regex stripped", () => {
    const piece = fc.constantFrom(...".,;:!?)]}'\"»”’(a/x-1 é😀".split(""), "😀", "https://a.io/");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(withoutTrailingPunctuation(text)).toBe(oldWithout(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("links an address followed by a long run of brackets in linear time", () => {
    // The old regex took ~95 ms on 10,000 ")" and grows with the square: 200,000 would take
    // ~40 s. The scan's one pass finishes far below this generous bound.
    const text = `https://a.io/${")".repeat(200_000)}x`;
    const started = performance.now();
    const parts = linkParts(text);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(parts.map((p) => p.text).join("")).toBe(text);
    expect(parts[0]?.href).toBe(new URL(text).href);
  });

  it("still leaves sentence punctuation out of the link", () => {
    expect(linkParts("(see https://x.org/a).")).toEqual([
      { text: "(see " },
      { text: "https://x.org/a", href: "https://x.org/a" },
      { text: ")." },
    ]);
  });
});
