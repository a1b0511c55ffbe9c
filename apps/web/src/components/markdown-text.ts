/**
 * An agent's markdown as the plain line a list shows for it ("Here is **your plan**" → "Here is
 * your plan"): the words the chat would render, without the markers. Not a markdown parser (the
 * chat list must not load one, decision 0053): it removes what agents commonly write — emphasis,
 * code spans, links and images (their text), headings, quotes, list markers, rules and escapes —
 * and leaves anything it is unsure of as written.
 */
export function markdownAsText(markdown: string): string {
  // Code spans and escaped characters are kept as written: set aside first, put back last.
  const kept: string[] = [];
  const keep = (text: string) => `\u{F0000}${kept.push(text) - 1}\u{F0001}`;
  let text = markdown
    .replace(/(`+)(.+?)\1/gs, (_, _ticks: string, code: string) => keep(code.trim()))
    .replace(/\\([!-/:-@[-`{-~])/g, (_, char: string) => keep(char));
  text = text
    .split("\n")
    .map(
      (line) =>
        line
          .replace(/^ {0,3}(?:[-*_] *){3,}$/, "") // a rule
          .replace(/^ {0,3}(?:> ?)+/, "") // quotes
          .replace(/^ {0,3}#{1,6}(?:\s+|$)/, "") // headings
          .replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+/, ""), // list items
    )
    .join("\n")
    .replace(/!\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, "$1") // images: their alt text
    .replace(/\[([^\]]+)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, "$1") // links: their text
    .replace(/<(https?:\/\/[^\s>]+)>/gi, "$1"); // autolinks
  // Emphasis, strongest first; `_` only at word edges (snake_case stays), `*` only hugging words.
  for (const pattern of [
    /\*\*\*(?=\S)(.+?)(?<=\S)\*\*\*/gs,
    /\*\*(?=\S)(.+?)(?<=\S)\*\*/gs,
    /(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)/gs,
    /\*(?=\S)(.+?)(?<=\S)\*/gs,
    /(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)/gs,
  ])
    text = text.replace(pattern, "$1");
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\u{F0000}(\d+)\u{F0001}/gu, (_, index: string) => kept[Number(index)] ?? "");
}
