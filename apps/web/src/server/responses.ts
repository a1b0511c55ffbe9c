import { type ApiError, type ErrorCode, errorStatus, toErrorIssues } from "@switchboard/contract";
import { CoreError, type CoreErrorDetails, log } from "@switchboard/core";
import { describeError, isDatabaseUnavailable } from "@switchboard/db";
import { ZodError } from "zod";

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

export const ok = (body: unknown, headers?: HeadersInit) => json(body, 200, headers);
export const created = (body: unknown, headers?: HeadersInit) => json(body, 201, headers);

/** The spec's error envelope with the status its code maps to. */
export function errorResponse(
  code: ErrorCode,
  message: string,
  details: CoreErrorDetails = {},
  headers: Record<string, string> = {},
): Response {
  const body: ApiError = { error: { code, message, ...details } };
  if (details.retryAfterSeconds !== undefined)
    headers["Retry-After"] = String(details.retryAfterSeconds);
  return json(body, errorStatus[code], headers);
}

/**
 * The one place a thrown error becomes a response: CoreError → its code, ZodError →
 * `validation_error` with issues, the database out of reach → 503 `unavailable` (retry), anything
 * else → logged and answered `internal_error`.
 */
export function toErrorResponse(error: unknown, requestId: string): Response {
  if (error instanceof CoreError) return errorResponse(error.code, error.message, error.details);
  if (error instanceof ZodError)
    return errorResponse("validation_error", "The request failed validation", {
      issues: toErrorIssues(error),
    });
  if (isDatabaseUnavailable(error)) {
    log.warn({ requestId, err: describeError(error) }, "database unavailable");
    return errorResponse("unavailable", "The service is briefly unavailable; retry shortly", {
      retryAfterSeconds: 1,
    });
  }
  // Described, not dumped: a failed query's error carries its bound parameters.
  log.error({ requestId, err: describeError(error) }, "unexpected error");
  return errorResponse("internal_error", `Something went wrong on our side (request ${requestId})`);
}
