import { type ErrorCode, type ErrorIssue, toErrorIssues } from "@switchboard/contract";
import type { z } from "zod";

export interface CoreErrorDetails {
  issues?: ErrorIssue[];
  retryAfterSeconds?: number;
  scope?: string;
}

/** The one error type core throws; every surface maps it to the spec's envelope. */
export class CoreError extends Error {
  /** For 429s: the limit that was hit, reported by the API in RateLimit-* headers. */
  rate?: { limit: number; remaining: number; resetSeconds: number; windowSeconds: number };

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: CoreErrorDetails = {},
  ) {
    super(message);
    this.name = "CoreError";
  }
}

export const notFound = (what: string) => new CoreError("not_found", `${what} not found`);

/**
 * Parses input that did not come through a wire adapter's own parse (CLI flags, console forms),
 * turning zod's complaint into the same `validation_error` the REST API answers.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, path = ""): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = toErrorIssues(parsed.error).map((issue) => ({
    ...issue,
    path: [path, issue.path].filter(Boolean).join("."),
  }));
  const first = issues[0];
  throw new CoreError(
    "validation_error",
    first ? `${first.path || "input"}: ${first.message}` : "invalid input",
    { issues },
  );
}

/**
 * A key the instance needs (AUTH_SECRET, SECRETS_KEY) is not given to this process, or a value
 * was sealed under a key it does not have. A setup problem of the process, never the caller's:
 * surfaces answer it as an internal error, and the CLI says where it looked for the keys.
 */
export class KeyUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyUnavailableError";
  }
}
