import { type ErrorCode, errorStatus } from "../errors";
import { type OperationDef, operationErrors } from "../operations";
import { type Json, ref } from "./json";

/** The error answers of the document: the envelope's examples, rate headers, codes per status. */

const exampleError = (code: ErrorCode): Json => ({
  error: {
    code,
    message: errorExampleMessages[code] ?? code.replaceAll("_", " "),
    ...(code === "validation_error" && {
      issues: [{ path: "content", message: "must be 1-10000 characters" }],
    }),
    ...((code === "rate_limited" || code === "conversation_rate_limited") && {
      retryAfterSeconds: 12,
    }),
    ...(code === "scope_not_granted" && { scope: "messages:write" }),
  },
});

const errorExampleMessages: Partial<Record<ErrorCode, string>> = {
  unauthorized: "Missing credentials; send Authorization: Bearer agent:<token>",
  agent_paused: "This agent is paused by its owner",
  scope_not_granted: "Ada has not granted messages:write",
  not_found: "No conversation cnv_…",
  rate_limited: "Too many requests; retry in 12 s",
  validation_error: "The request failed validation",
  internal_error: "Something went wrong on our side (request 1b4e…)",
};

export const rateHeaders = {
  "RateLimit-Limit": { schema: { type: "integer" }, description: "Requests allowed per window" },
  "RateLimit-Remaining": { schema: { type: "integer" }, description: "Left in this window" },
  "RateLimit-Reset": {
    schema: { type: "integer" },
    description: "Seconds until the window resets",
  },
  "RateLimit-Policy": { schema: { type: "string" }, description: "`<limit>;w=<window seconds>`" },
  "X-Request-Id": { schema: { type: "string" }, description: "Quote it when reporting a problem" },
};

/** The error answers of an operation, one response per status, each listing its codes. */
export function errorResponses(op: OperationDef): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(op)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes.map((code) => `\`${code}\``).join(", "),
          ...(status === 429 && {
            headers: {
              "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait" },
            },
          }),
          content: {
            "application/json": {
              schema: {
                allOf: [
                  ref("ApiError"),
                  // Narrows the code only: the envelope's other fields are ApiError's.
                  {
                    properties: {
                      error: { properties: { code: { enum: codes } }, additionalProperties: true },
                    },
                    additionalProperties: true,
                  },
                ],
              },
              examples: Object.fromEntries(
                codes.map((code) => [code, { summary: code, value: exampleError(code) }]),
              ),
            },
          },
        },
      ]),
  );
}

/** Answered by the HTTP edge to any request it cannot read, before a route runs. */
export const edgeErrors = (): Json => ({
  "4XX": {
    description: "`malformed_request` (400), `headers_too_large` (431)",
    content: { "application/json": { schema: ref("ApiError") } },
  },
});
