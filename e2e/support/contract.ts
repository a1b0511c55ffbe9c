import type { APIResponse } from "@playwright/test";
import {
  AgentEvent,
  ApiError,
  type ErrorCode,
  errorStatus,
  type Operation,
  operationErrors,
  operations,
  ServerFrame,
} from "@switchboard/contract";
import type { z } from "zod";

/**
 * Contract checks: every answer of the two APIs the e2e tests see is matched to its registry
 * entry by method and path and validated against it (the success schema, or the error envelope
 * with a code the entry lists at the status the code maps to); events and stream frames are
 * validated where specs read them. A mismatch fails the test that saw it.
 */

const pattern = (op: Operation) => new RegExp(`^/api${op.path.replace(/\{\w+\}/g, "[^/]+")}$`);
const routes = operations
  .map((op) => ({ op, regex: pattern(op), params: (op.path.match(/\{/g) ?? []).length }))
  // A literal segment wins over a parameter (`/updates/cursor` before `/updates/{x}`).
  .sort((a, b) => a.params - b.params);

/** The entries at a path (any method); empty for a path the registry does not have. */
export function operationsAt(pathname: string): Operation[] {
  const first = routes.find((route) => route.regex.test(pathname));
  return first ? routes.filter((r) => r.op.path === first.op.path).map((r) => r.op) : [];
}

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

/** The drift between an answer and the contract, or null when it matches. */
export function contractDrift(
  method: string,
  url: string,
  status: number,
  contentType: string,
  body: Buffer,
): string | null {
  const { pathname } = new URL(url, "http://service");
  if (!/^\/api\/(agent\/)?v1\//.test(pathname) || pathname.endsWith("/openapi.json")) return null;
  const at = operationsAt(pathname);
  const op = at.find((candidate) => candidate.method === method.toUpperCase());
  const where = `${method.toUpperCase()} ${pathname} → ${status}`;
  if ((op && status === op.status) || (op && status === 206 && !("safeParse" in op.response))) {
    if ("safeParse" in op.response) {
      const parsed = op.response.safeParse(JSON.parse(body.toString("utf8")));
      return parsed.success
        ? null
        : `${where}: not ${op.operationId}'s response: ${issues(parsed.error)}`;
    }
    return contentType.startsWith(op.response.binary.replace("*", ""))
      ? null
      : `${where}: ${op.operationId} answered ${contentType}, not ${op.response.binary}`;
  }
  if (status < 400)
    return `${where}: ${op ? `${op.operationId} answers ${op.status}` : "no registry entry"}`;
  if (!contentType.includes("application/json")) return `${where}: error answered ${contentType}`;
  const envelope = ApiError.safeParse(JSON.parse(body.toString("utf8")));
  if (!envelope.success) return `${where}: not the error envelope: ${issues(envelope.error)}`;
  const code: ErrorCode = envelope.data.error.code;
  if (errorStatus[code] !== status) return `${where}: ${code} maps to ${errorStatus[code]}`;
  const allowed: ErrorCode[] = op
    ? operationErrors(op)
    : at.length > 0
      ? ["method_not_allowed"]
      : ["not_found", "method_not_allowed"];
  return allowed.includes(code)
    ? null
    : `${where}: ${code} is not among ${op?.operationId ?? "the path's"} errors (${allowed.join(", ")})`;
}

/** Throws when an answer drifts from the contract. */
export async function checkAnswer(method: string, url: string, response: APIResponse) {
  const drift = contractDrift(
    method,
    url,
    response.status(),
    response.headers()["content-type"] ?? "",
    await response.body(),
  );
  if (drift) throw new Error(`Contract drift: ${drift}`);
}

/** An event as a webhook or stream delivered it, checked against the event registry. */
export function expectEvent(event: unknown): AgentEvent {
  const parsed = AgentEvent.safeParse(event);
  if (!parsed.success) throw new Error(`Contract drift in an event: ${issues(parsed.error)}`);
  return parsed.data;
}

/** A server frame of the stream, checked against the contract's frames. */
export function expectServerFrame(frame: unknown): ServerFrame {
  const parsed = ServerFrame.safeParse(frame);
  if (!parsed.success) throw new Error(`Contract drift in a stream frame: ${issues(parsed.error)}`);
  return parsed.data;
}
