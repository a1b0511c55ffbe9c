/**
 * The browser-side defences of the console and API, in one place (decision
 * 0022-browser-policy). Pages get a per-request nonce policy from `proxy.ts`; everything
 * else (API answers, next-auth, static files) gets the fixed headers from next.config.ts.
 */

/** On every answer, page or API. */
export const SECURITY_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
  { key: "X-Frame-Options", value: "DENY" },
];

/** API answers are data, never pages: nothing to load, no script, no origin if rendered. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

/**
 * A console page's policy. Scripts: our own files and the inline scripts Next renders with this
 * request's nonce, nothing else (no 'unsafe-inline', no other host). Media and images only from
 * our origin (an agent's server never sees the person's browser), requests only to our origin.
 * Inline styles stay allowed: React renders style attributes, and with no other host reachable
 * a style cannot carry anything out.
 */
export function pagePolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** A fresh nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
