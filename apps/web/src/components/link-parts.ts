/** Web addresses in running text; only http and https ever become links. */
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/gi;
/** Punctuation that ends a sentence rather than the address. */
const TRAILING = /[.,;:!?)\]}'"»”’]+$/;

/** The parts of a text: plain runs and http(s) links (checked by the URL parser). */
export function linkParts(text: string): { text: string; href?: string }[] {
  const parts: { text: string; href?: string }[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const start = match.index ?? 0;
    let candidate = match[0];
    // "(see https://x.org/a)." — punctuation that ends the sentence is not part of the address.
    const trailing = TRAILING.exec(candidate)?.[0] ?? "";
    candidate = candidate.slice(0, candidate.length - trailing.length);
    const href = safeHref(candidate);
    if (!href) continue;
    if (start > at) parts.push({ text: text.slice(at, start) });
    parts.push({ text: candidate, href });
    at = start + candidate.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

function safeHref(candidate: string): string | null {
  try {
    const url = new URL(candidate);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}
