import { pinnedHost, requestHost } from "./options";

/**
 * Why a browser request must not act with the person's session, or null when it may: it was
 * sent by a page of another origin (another site, another port, a sandboxed document whose
 * origin is "null"). Browsers send `Origin` on every POST and on cross-origin reads, and
 * `Sec-Fetch-Site` on every request; a client that sends neither is not a browser, and carries
 * no ambient cookie of the person's to abuse. The scheme is not compared: the host the request
 * came to (or the pinned public URL's) is what identifies the console.
 */
export function crossOriginReason(headers: Headers): string | null {
  const origin = headers.get("origin");
  if (origin !== null) {
    let host: string | null = null;
    try {
      host = new URL(origin).host || null;
    } catch {
      // "null" or garbage: not ours
    }
    return host && (host === requestHost(headers) || host === pinnedHost)
      ? null
      : `Requests from ${origin} are not accepted; use the console itself`;
  }
  const site = headers.get("sec-fetch-site");
  return site && site !== "same-origin" && site !== "none"
    ? `A ${site} request is not accepted; use the console itself`
    : null;
}
