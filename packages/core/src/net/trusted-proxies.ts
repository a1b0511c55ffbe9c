import ipaddr from "ipaddr.js";

/**
 * Forwarded headers are believed only from the proxies the operator names (`TRUSTED_PROXIES`, a
 * list of addresses and CIDR ranges), never from whoever connects: a client can write any
 * `X-Forwarded-For` it likes, and a port published past the proxy would otherwise let it name
 * itself 127.0.0.1 (opening `/metrics`) or a new address per try (dodging per-network limits).
 */

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address or range as ipaddr.js reads it, or null (`10.0.0.0/8`, `::1`, `192.0.2.7`). */
export function parseProxyRange(entry: string): Range | null {
  try {
    if (entry.includes("/")) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  } catch {
    return null;
  }
}

const parsedLists = new WeakMap<readonly string[], Range[]>();

function rangesOf(trusted: readonly string[]): Range[] {
  let ranges = parsedLists.get(trusted);
  if (!ranges) {
    // Config has already refused entries that do not parse (config.ts); skip any here.
    ranges = trusted.map(parseProxyRange).filter((range): range is Range => range !== null);
    parsedLists.set(trusted, ranges);
  }
  return ranges;
}

/** Whether `address` lies in one of the trusted ranges (IPv4-mapped IPv6 read as IPv4). */
export function isTrustedProxy(address: string, trusted: readonly string[]): boolean {
  if (trusted.length === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return false;
  }
  return rangesOf(trusted).some(
    ([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits),
  );
}

/**
 * Who sent a request that came from `peer` (the socket's address): walking back from the peer
 * through `X-Forwarded-For` (each proxy appends the address it got the request from), the first
 * address that is not a trusted proxy, or the farthest one when all are. `hops` is how many
 * trusted proxies the request passed (0: the peer is the client and forwarded headers are not
 * believed). Null client when unknown.
 */
export function forwardedClient(
  peer: string | null | undefined,
  forwardedFor: string | null | undefined,
  trusted: readonly string[],
): { client: string | null; hops: number } {
  if (!peer) return { client: null, hops: 0 };
  const forwarded = (forwardedFor ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const chain = [...forwarded, peer];
  let hops = 0;
  while (hops < chain.length && isTrustedProxy(chain[chain.length - 1 - hops] as string, trusted))
    hops++;
  return { client: chain[Math.max(0, chain.length - 1 - hops)] || null, hops };
}

/** The client of a request from `peer` as `forwardedClient` finds it; null when unknown. */
export function proxiedClient(
  peer: string | null | undefined,
  forwardedFor: string | null | undefined,
  trusted: readonly string[],
): string | null {
  return forwardedClient(peer, forwardedFor, trusted).client;
}
