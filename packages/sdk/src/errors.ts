import type { ErrorIssue, OperationId } from "@switchboard/contract";
import type { AnyErrorCode, ClientErrorCode, OperationErrorCode } from "./types";

/**
 * Every failure the SDK reports: the service's error envelope (`code`, `message`, `issues`,
 * `retryAfterSeconds`, `scope`) with the HTTP status, or a client-side code (`network_error`,
 * `timeout`, `unexpected_response`, `connection_closed`) with status 0.
 */
export class SwitchboardError<C extends string = AnyErrorCode> extends Error {
  override readonly name = "SwitchboardError";
  readonly code: C;
  /** The HTTP status; 0 when no answer explains the failure. */
  readonly status: number;
  /** With `validation_error`: which fields, and why. */
  readonly issues?: ErrorIssue[];
  /** With 429: seconds to wait before trying again. */
  readonly retryAfterSeconds?: number;
  /** With `scope_not_granted`: the scope the person has not granted. */
  readonly scope?: string;
  /** The operation that failed (unset for stream frames). */
  readonly operationId?: string;
  /** The stream reply the error is about (stream `error` frames). */
  readonly streamId?: string;

  constructor(init: {
    code: C;
    message: string;
    status: number;
    issues?: ErrorIssue[];
    retryAfterSeconds?: number;
    scope?: string;
    operationId?: string;
    streamId?: string;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    if (init.issues) this.issues = init.issues;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.scope) this.scope = init.scope;
    if (init.operationId) this.operationId = init.operationId;
    if (init.streamId) this.streamId = init.streamId;
  }
}

/**
 * Whether `error` is a SwitchboardError, narrowed to the codes `operationId` may answer when
 * given: `if (isSwitchboardError(e, "proposeAction") && e.code === "too_many_pending")`.
 */
export function isSwitchboardError<K extends OperationId>(
  error: unknown,
  operationId?: K,
): error is SwitchboardError<OperationErrorCode<K> | ClientErrorCode> {
  return (
    error instanceof SwitchboardError &&
    (operationId === undefined || error.operationId === operationId)
  );
}

/** The envelope's fields, read defensively: anything else is an `unexpected_response`. */
export function errorFromBody(
  body: unknown,
  status: number,
  extra: { operationId?: string; streamId?: string; retryAfterHeader?: string | null } = {},
): SwitchboardError {
  const error = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  if (!error || typeof error.code !== "string" || typeof error.message !== "string")
    return new SwitchboardError({
      code: "unexpected_response",
      message: `The service answered ${status} without the API's error envelope`,
      status,
      operationId: extra.operationId,
      streamId: extra.streamId,
    });
  const fromHeader = Number(extra.retryAfterHeader);
  const retryAfterSeconds =
    typeof error.retryAfterSeconds === "number"
      ? error.retryAfterSeconds
      : extra.retryAfterHeader && Number.isFinite(fromHeader)
        ? fromHeader
        : undefined;
  return new SwitchboardError({
    code: error.code as AnyErrorCode,
    message: error.message,
    status,
    issues: Array.isArray(error.issues) ? (error.issues as ErrorIssue[]) : undefined,
    retryAfterSeconds,
    scope: typeof error.scope === "string" ? error.scope : undefined,
    operationId: extra.operationId,
    streamId: extra.streamId,
  });
}
