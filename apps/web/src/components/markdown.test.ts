import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown";

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe("Markdown", () => {
  it("renders emphasis, lists and http(s) links with their host", () => {
    const out = html("**next week**\n\n- one\n- two\n\n[the plan](https://example.com/a?b=1)");
    expect(out).toContain("<strong>next week</strong>");
    expect(out).toContain("<li>one</li>");
    expect(out).toMatch(
      /<a href="https:\/\/example.com\/a\?b=1" target="_blank" rel="noopener noreferrer nofollow"[^>]*>the plan<\/a>/,
    );
    expect(out).toContain("(example.com)");
    expect(html("see https://example.org/x.")).toContain('href="https://example.org/x"');
  });

  it("keeps every other scheme, relative links, raw HTML and images inert", () => {
    const out = html(
      [
        "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html,x) [d](/api/x)",
        "[e](vbscript:x) <javascript:alert(1)>",
        '<img src=x onerror="alert(1)"> <script>alert(1)</script> <a href="javascript:1">f</a>',
        "![pic](https://tracker.example/p.png) ![local](/api/console/media/x)",
      ].join("\n\n"),
    );
    expect(out).not.toMatch(/<(img|script|iframe)\b/i);
    expect(out).not.toMatch(/href="(?!https?:)/i);
    expect(out).not.toMatch(/<[^>]*\sonerror=/i);
    expect(out).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(out).toContain("&lt;script&gt;");
    const hrefs = [...out.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual(["https://tracker.example/p.png"]);
  });
});
