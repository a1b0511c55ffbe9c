import { isIP } from "node:net";
import { proxiedClient } from "@switchboard/core";

/**
 * The header carrying the address the web app's socket was connected from. `instrumentation.ts`
 * sets it on every request before Next sees it, replacing anything a client sent; Next itself
 * only fills `X-Forwarded-For` when it is absent, so a client could name any address there.
 */
export const PEER_HEADER = "x-switchboard-peer";

/**
 * The client's network, for limits per source (decision 0023): the socket's
 * peer, or, when the peer is one of the `trusted` proxies (TRUSTED_PROXIES), the first address
 * back through `X-Forwarded-For` that is not. IPv4 addresses count alone, IPv6 ones by their /64
 * (one subscriber's whole block). Null when unknown.
 */
export function clientNetwork(headers: Headers, trusted: readonly string[]): string | null {
  const client = clientAddress(headers, trusted);
  return client ? networkOf(client) : null;
}

/** The client's address as `clientNetwork` finds it (not reduced to a network); null when unknown. */
export function clientAddress(headers: Headers, trusted: readonly string[]): string | null {
  return proxiedClient(headers.get(PEER_HEADER)?.trim(), headers.get("x-forwarded-for"), trusted);
}

export function networkOf(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return networkOf(mapped);
  const kind = isIP(bare);
  if (kind === 4) return bare;
  if (kind !== 6) return null;
  const [head = "", tail] = bare.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? left
      : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** The client's address family (a token's "last used from"); null when unknown. */
export function clientFamily(headers: Headers, trusted: readonly string[]): "ipv4" | "ipv6" | null {
  const network = clientNetwork(headers, trusted);
  return network === null ? null : network.includes(":") ? "ipv6" : "ipv4";
}
