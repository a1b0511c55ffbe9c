import { z } from "zod";

/**
 * Every error code the service answers with, and its HTTP status. The spec's codes come first;
 * the rest are codes the spec leaves open ("Complete list of error codes: not shown") and are
 * just as stable once shipped.
 */
export const errorStatus = {
  validation_error: 400,
  invalid_expiry: 400,
  invalid_payload: 400,
  invalid_audio: 400,
  unsupported: 400,
  /** A streamed reply would pass 10,000 characters. */
  reply_too_long: 400,
  /** An `Idempotency-Key` header that is empty, over 255 characters or not printable ASCII. */
  invalid_idempotency_key: 400,
  unauthorized: 401,
  token_revoked: 401,
  token_expired: 401,
  key_revoked: 401,
  key_expired: 401,
  forbidden: 403,
  not_a_contact: 403,
  scope_not_granted: 403,
  recipient_suspended: 403,
  blocked: 403,
  reply_window_closed: 403,
  agent_paused: 403,
  account_suspended: 403,
  not_found: 404,
  message_not_found: 404,
  no_audio: 404,
  method_not_allowed: 405,
  /** A request body arrived slower than the server's floor rate and was cut off. */
  request_timeout: 408,
  conflict: 409,
  too_many_pending: 409,
  /** A request with this `Idempotency-Key` is still running; retry once it has answered. */
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  /** The request's header block is over the server's limit (answered before any route runs). */
  headers_too_large: 431,
  /** Not an HTTP request the server can read: a broken request line, header or framing. */
  malformed_request: 400,
  /** An image or video URL's media is over 10 MB. */
  media_too_large: 413,
  /** An image or video URL's content is not an image or video of an accepted format. */
  unsupported_media: 415,
  /** An image or video URL could not be fetched (refused address, no answer, not 2xx). */
  media_fetch_failed: 422,
  /** This `Idempotency-Key` was used within 24 h for a different request (body or endpoint). */
  idempotency_key_reused: 422,
  /** A `Range` that lies past the end of the stored bytes. */
  range_not_satisfiable: 416,
  /** Storing the media would pass the agent's or its owner's storage quota. */
  storage_quota_exceeded: 413,
  rate_limited: 429,
  conversation_rate_limited: 429,
  /** A stream connection already has its 3 replies open. */
  too_many_open_replies: 429,
  internal_error: 500,
  tts_failed: 502,
  tts_unavailable: 503,
  /** The database is briefly out of reach (restarting, failing over): retry after Retry-After. */
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export const ErrorCode = z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]);

export const ErrorIssue = z.object({ path: z.string(), message: z.string() });
export type ErrorIssue = z.infer<typeof ErrorIssue>;

export const ApiErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
  issues: z.array(ErrorIssue).optional(),
  retryAfterSeconds: z.number().int().optional(),
  /** Set with `scope_not_granted`: the scope that was missing. */
  scope: z.string().optional(),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** The spec's error envelope: `{ error: { code, message, issues?, retryAfterSeconds? } }`. */
export const ApiError = z.object({ error: ApiErrorBody });
export type ApiError = z.infer<typeof ApiError>;

/** Turns zod issues into the envelope's `issues: [{ path: "a.b", message }]`. */
export function toErrorIssues(error: z.ZodError): ErrorIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}
