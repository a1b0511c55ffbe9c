import { forwardedClient } from "@switchboard/core";

/**
 * Where the console's origin comes from (decision 0034): `PUBLIC_URL` when set, else the Host the
 * request came to, with a proxy's `X-Forwarded-Host`/`-Proto` only when the request came through
 * a trusted proxy (`TRUSTED_PROXIES`, decision 0061). The web app's raw-request guard settles these headers once per
 * request, before Next, next-auth or a route reads them, so everything downstream that reads
 * "X-Forwarded-Host, else Host" gets the one answer, and an odd value is refused there (400)
 * instead of failing later as an `Invalid URL` (500).
 */

export interface OriginSettings {
  PUBLIC_URL?: string;
  TRUSTED_PROXIES: readonly string[];
}

type RawHeaders = Record<string, string | string[] | undefined>;

/** Whether `value` is a bare host with an optional port: no user, path, query or spaces. */
export function isHost(value: string): boolean {
  if (!value || /[\s/\\?#@]/.test(value)) return false;
  try {
    const url = new URL(`http://${value}`);
    return url.hostname !== "" && url.pathname === "/";
  } catch {
    return false;
  }
}

/**
 * The value a chain of `hops` trusted proxies put in a list header: each appends (or sets) its
 * own, so entries a client put in front are never reached.
 */
function trustedEntry(value: string | string[] | undefined, hops: number): string | undefined {
  const list = (Array.isArray(value) ? value.join(",") : (value ?? ""))
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  return list.length === 0 ? undefined : list[Math.max(0, list.length - hops)];
}

/**
 * Settles a raw request's origin headers in place: `x-forwarded-host` and `x-forwarded-proto`
 * end up naming the console's origin (from `PUBLIC_URL`, a trusted proxy, or nothing so that
 * Next fills them from Host and the socket). `peer` is the socket's address. Answers why the
 * request is refused, or null.
 */
export function settleOriginHeaders(
  headers: RawHeaders,
  peer: string | undefined,
  settings: OriginSettings,
): string | null {
  const host = headers.host;
  if (host !== undefined && !isHost(String(host))) return "The Host header is not a host";
  const forwardedFor = headers["x-forwarded-for"];
  const { hops } = forwardedClient(
    peer,
    Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor,
    settings.TRUSTED_PROXIES,
  );
  const forwardedHost = hops > 0 ? trustedEntry(headers["x-forwarded-host"], hops) : undefined;
  const forwardedProto = hops > 0 ? trustedEntry(headers["x-forwarded-proto"], hops) : undefined;
  delete headers["x-forwarded-host"];
  delete headers["x-forwarded-proto"];
  delete headers["x-forwarded-port"];
  if (settings.PUBLIC_URL) {
    const url = new URL(settings.PUBLIC_URL);
    headers["x-forwarded-host"] = url.host;
    headers["x-forwarded-proto"] = url.protocol.slice(0, -1);
    return null;
  }
  if (forwardedHost !== undefined) {
    if (!isHost(forwardedHost)) return "The X-Forwarded-Host header is not a host";
    headers["x-forwarded-host"] = forwardedHost;
  }
  if (forwardedProto !== undefined) {
    if (forwardedProto !== "http" && forwardedProto !== "https")
      return "The X-Forwarded-Proto header is not http or https";
    headers["x-forwarded-proto"] = forwardedProto;
  }
  return null;
}

/** HSTS for answers served over https (a year; subdomains are the operator's to decide). */
export const HSTS = "max-age=31536000";
