import { z } from "zod";
import type { ErrorIssue } from "./errors";

const NUL = /\u0000/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored as it is, or null when it can. */
export function unstorableTextReason(text: string): string | null {
  if (NUL.test(text)) return "must not contain NUL (\\u0000) characters";
  if (LONE_SURROGATE.test(text)) return "must not contain unpaired UTF-16 surrogates";
  return null;
}

/**
 * Text Postgres can store: the one "storable text" rule as a zod string, for every entry point
 * (REST and tRPC bodies are walked whole with `findUnstorableText`, which applies the same
 * reasons; WebSocket frames and CLI input use this schema).
 */
export const StorableText = z.string().superRefine((text, ctx) => {
  const reason = unstorableTextReason(text);
  if (reason) ctx.addIssue({ code: "custom", message: reason });
});

interface Place {
  parent: Place | null;
  key: string;
}

/** A place as a zod-style path (`a.b.0`); very deep ones keep their first 100 steps. */
function pathOf(place: Place | null): string {
  const keys: string[] = [];
  for (let at = place; at; at = at.parent) keys.push(at.key);
  keys.reverse();
  return keys.length > 100 ? `${keys.slice(0, 100).join(".")}…` : keys.join(".");
}

/**
 * Every string in `value` (at any depth, object keys included) that Postgres cannot store as
 * text or jsonb — a NUL character, or a lone UTF-16 surrogate that has no UTF-8 form — as the
 * envelope's issues, paths written like zod's (`a.b.0`). Such input is refused, never stored
 * altered. Walks without recursion, so a deeply nested body cannot exhaust the stack; reports
 * at most `limit` issues.
 */
export function findUnstorableText(value: unknown, limit = 20): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  // An entry of an object carries its key, checked when the entry is reached: issues come in
  // document order.
  type Entry = { value: unknown; place: Place | null; key?: boolean };
  const stack: Entry[] = [{ value, place: null }];
  const note = (place: Place | null, text: string) => {
    const reason = unstorableTextReason(text);
    if (reason) issues.push({ path: pathOf(place), message: reason });
  };
  while (stack.length > 0 && issues.length < limit) {
    const { value: item, place, key } = stack.pop() as Entry;
    if (key && place) note(place, place.key);
    if (typeof item === "string") note(place, item);
    else if (Array.isArray(item))
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i], place: { parent: place, key: String(i) } });
    else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [name, child] = entries[i] as [string, unknown];
        stack.push({ value: child, place: { parent: place, key: name }, key: true });
      }
    }
  }
  return issues.slice(0, limit);
}
