import { describe, expect, it } from "vitest";
import { markdownAsText } from "./markdown-text";

describe("markdownAsText", () => {
  it("drops emphasis, code, link and image markers, keeping the words", () => {
    expect(markdownAsText("Here is **your plan** for _this_ week")).toBe(
      "Here is your plan for this week",
    );
    expect(markdownAsText("***all*** of __it__ and *some*")).toBe("all of it and some");
    expect(markdownAsText("Run `npm **test**` now")).toBe("Run npm **test** now");
    expect(markdownAsText('See [the plan](https://example.com/p "Plan") or <https://x.org>')).toBe(
      "See the plan or https://x.org",
    );
    expect(markdownAsText("![a chart](https://example.com/c.png)")).toBe("a chart");
  });

  it("drops block markers and joins the lines into one", () => {
    expect(markdownAsText("## Tuesday\n\n> quoted\n\n- one\n* two\n3. three\n\n---\nend")).toBe(
      "Tuesday quoted one two three end",
    );
  });

  it("leaves what is not markdown as written", () => {
    expect(markdownAsText("2 * 3 = 6, snake_case_name, a ** b")).toBe(
      "2 * 3 = 6, snake_case_name, a ** b",
    );
    expect(markdownAsText("\\*not emphasis\\* and 5\\_000")).toBe("*not emphasis* and 5_000");
    expect(markdownAsText("<b>raw</b> stays text")).toBe("<b>raw</b> stays text");
  });
});
