/** Web addresses in running text; only http and https ever become links. */
const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/gi;
/** Punctuation that ends a sentence rather than the address. */
const TRAILING = new Set(".,;:!?)]}'\"»”’");

/** The parts of a text: plain runs and http(s) links (checked by the URL parser). */
export function linkParts(text: string): { text: string; href?: string }[] {
  const parts: { text: string; href?: string }[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const start = match.index ?? 0;
    let candidate = match[0];
    // "(see https://x.org/a)." — punctuation that ends the sentence is not part of the address.
    candidate = withoutTrailingPunctuation(candidate);
    const href = safeHref(candidate);
    if (!href) continue;
    if (start > at) parts.push({ text: text.slice(at, start) });
    parts.push({ text: candidate, href });
    at = start + candidate.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

/**
 * The text without its run of trailing punctuation. A backwards scan, linear in the text: the
 * regex it replaces (`/[…]+$/`) retried from every start inside a long run, quadratic on agent
 * text such as an address followed by thousands of ")" and one letter.
 */
export function withoutTrailingPunctuation(candidate: string): string {
  let end = candidate.length;
  while (end > 0 && TRAILING.has(candidate[end - 1] as string)) end--;
  return candidate.slice(0, end);
}

/** The address as a link target when it is an absolute http(s) URL; null for anything else. */
export function safeHref(candidate: string): string | null {
  try {
    const url = new URL(candidate);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A map for a shared place, on OpenStreetMap's site (the console itself fetches no tiles). */
export function mapsUrl(latitude: string, longitude: string): string | null {
  const lat = Number(latitude);
  const lon = Number(longitude);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180)
    return null;
  const [la, lo] = [lat.toFixed(6), lon.toFixed(6)];
  return `https://www.openstreetmap.org/?mlat=${la}&mlon=${lo}#map=16/${la}/${lo}`;
}
