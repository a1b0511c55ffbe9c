import { createHmac, timingSafeEqual } from "node:crypto";
import type { AgentEvent } from "@switchboard/contract";

/** The header that carries the signature: `t=<unix seconds>,v1=<hex>[,v1=<hex>]`. */
export const SIGNATURE_HEADER = "x-svc-signature";

export type WebhookVerificationReason =
  | "missing_signature"
  | "malformed_signature"
  | "timestamp_out_of_tolerance"
  | "no_matching_signature"
  | "invalid_json";

/** A webhook request that must be refused (answer it 400): `reason` says why. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookOptions {
  /** Oldest (and furthest ahead) signature time accepted, in seconds. Default 300 (the spec's 5 min). */
  toleranceS?: number;
  /** "Now" in unix seconds, for tests. */
  nowS?: number;
}

/**
 * Verifies a webhook delivery against the raw body bytes (before any JSON parsing) and answers
 * the event. `secret` may be a list: while you move to a rotated secret, pass both. Every `v1`
 * of the header is tried against every secret (the service signs with both during its 24 h
 * grace), compared in constant time. Throws WebhookVerificationError when nothing matches, the
 * header is missing or malformed, or the timestamp is outside the tolerance.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | string[] | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): AgentEvent {
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(",") : signatureHeader;
  if (!header)
    throw new WebhookVerificationError("missing_signature", `No ${SIGNATURE_HEADER} header`);
  const { timestamp, signatures } = parseSignature(header);
  const tolerance = options.toleranceS ?? 300;
  const now = options.nowS ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `The signature is ${now - timestamp} s old; at most ${tolerance} s are accepted`,
    );
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`, "utf8"), body]);
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => !s))
    throw new TypeError("verifyWebhook: a signing secret (whsec_…) is required");
  let matched = false;
  for (const key of secrets) {
    const expected = createHmac("sha256", key).update(signed).digest();
    // Every pair is compared (no early exit), so timing says nothing about which one matched.
    for (const candidate of signatures)
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected))
        matched = true;
  }
  if (!matched)
    throw new WebhookVerificationError(
      "no_matching_signature",
      "No signature matches the body with the given secret",
    );
  try {
    return JSON.parse(body.toString("utf8")) as AgentEvent;
  } catch {
    throw new WebhookVerificationError("invalid_json", "The signed body is not JSON");
  }
}

function parseSignature(header: string): { timestamp: number; signatures: Buffer[] } {
  let timestamp: number | null = null;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === "t" && value && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && value && /^[0-9a-f]+$/i.test(value))
      signatures.push(Buffer.from(value, "hex"));
  }
  if (timestamp === null || signatures.length === 0)
    throw new WebhookVerificationError(
      "malformed_signature",
      `${SIGNATURE_HEADER} must read t=<unix seconds>,v1=<hex HMAC-SHA256>`,
    );
  return { timestamp, signatures };
}
