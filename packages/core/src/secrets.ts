import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A new high-entropy secret with a recognizable prefix (for secret scanners). */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

/** Tokens and keys are stored only as this hash; they carry 256 random bits, so no salt is needed. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What the console shows to tell secrets apart: the prefix and a few characters. */
export function secretHint(secret: string): string {
  return `${secret.slice(0, 10)}…`;
}
