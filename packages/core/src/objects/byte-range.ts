/**
 * One HTTP byte range (RFC 9110 §14) of a body of `size` bytes: `bytes=a-b`, `bytes=a-` or
 * `bytes=-n`. Answers the inclusive range to send; "whole" when there is no Range header or it
 * is not one range the service serves (a server may ignore those); "unsatisfiable" for a
 * well-formed range that lies past the end (416).
 */
export type ByteRange = { start: number; end: number } | "whole" | "unsatisfiable";

export function parseByteRange(header: string | null | undefined, size: number): ByteRange {
  if (!header) return "whole";
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (!match[1] && !match[2])) return "whole";
  const [, first = "", last = ""] = match;
  if (!first) {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last ? Number(last) : size - 1;
  if (last && end < start) return "whole";
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(end, size - 1) };
}
