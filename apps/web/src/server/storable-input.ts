import { type ErrorIssue, findUnstorableText } from "@switchboard/contract";
import { CoreError } from "@switchboard/core";

/**
 * Refuses input carrying text Postgres cannot store (NUL, lone surrogates), naming where: a
 * 400 `validation_error` before any schema or core code sees it, never a 500 from the database
 * and never a silently altered value. One check for every surface's input stage.
 */
export function assertStorableInput(value: unknown, issues: ErrorIssue[] = []): void {
  const found = [...issues, ...findUnstorableText(value)];
  if (found.length > 0)
    throw new CoreError("validation_error", "The request contains text that cannot be stored", {
      issues: found,
    });
}

/**
 * A URL's query as an object, refused when a value is not text that can be stored — including
 * percent-escapes that are not UTF-8, which URLSearchParams would turn into U+FFFD unnoticed.
 */
export function storableQuery(url: URL): Record<string, string> {
  const query = Object.fromEntries(url.searchParams);
  assertStorableInput(query, escapeIssues(url.search));
  return query;
}

/**
 * The parts of a request target (`/path?query`, or just `?query`) whose percent-escapes do not
 * decode to UTF-8 text: the path as a whole (path `""`), each query value by its name.
 */
export function escapeIssues(target: string): ErrorIssue[] {
  const at = target.indexOf("?");
  const path = at === -1 ? target : target.slice(0, at);
  const issues: ErrorIssue[] = decodes(path)
    ? []
    : [{ path: "", message: "the URL path is not valid UTF-8" }];
  if (at === -1) return issues;
  for (const part of target.slice(at + 1).split("&")) {
    const [key = "", value = ""] = part.split("=", 2).map((s) => s.replaceAll("+", " "));
    if (!decodes(key) || !decodes(value))
      issues.push({
        path: decodes(key) ? decodeURIComponent(key) : "",
        message: "is not valid UTF-8",
      });
  }
  return issues;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
