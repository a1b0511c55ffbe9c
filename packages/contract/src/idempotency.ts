import { z } from "zod";
import type { ErrorCode } from "./errors";

/**
 * Retries that never act twice: every POST of the Agent API and the Developer API takes an
 * `Idempotency-Key`. The same key with the same request within 24 h answers the first answer
 * again (same status and bytes, `Idempotent-Replayed: true`) and does nothing; a different
 * request under the key is refused (422 `idempotency_key_reused`); a retry while the first is
 * still running is refused (409 `idempotency_key_in_use`). Keys are the agent's own (the
 * developer key's own on the Developer API). MCP write tools take it as `idempotencyKey`.
 */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";
/** How long a key answers its first answer; after that it is a new key. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;

/** 1–255 printable ASCII characters (space to `~`); a UUID is a good one. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, "printable ASCII only");

/** The MCP argument that carries the key, on every write tool. */
export const IDEMPOTENCY_KEY_ARGUMENT = "idempotencyKey";

export const idempotencyKeyDescription =
  "Any 1–255 printable ASCII characters (a random UUID is a good one), chosen per write. The same key with the same request within 24 h answers the first answer again, marked `Idempotent-Replayed: true`, and does nothing again; the same key with a different request answers 422 `idempotency_key_reused`; while the first request is still running, 409 `idempotency_key_in_use`. Keys are per agent (per developer key on the Developer API).";

/** Whether an operation takes a key: every POST (the other methods are idempotent already). */
export function takesIdempotencyKey(op: { method: string }): boolean {
  return op.method === "POST";
}

/** The errors a key can answer. */
export const idempotencyErrors = [
  "invalid_idempotency_key",
  "idempotency_key_reused",
  "idempotency_key_in_use",
] as const satisfies readonly ErrorCode[];
