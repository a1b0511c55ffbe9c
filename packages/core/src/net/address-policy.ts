import { Resolver, lookup as systemLookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { CoreError } from "../errors";

/**
 * Where webhooks may point: https URLs on public hosts only. Checked when a webhook is set and
 * again before every delivery, after DNS resolution, on the very address the request connects to.
 */

/**
 * Where an address lies, by ipaddr.js's table of special ranges (RFC 6890 and successors): only
 * plain global `unicast` is public. IPv6 forms that carry an IPv4 address (IPv4-mapped,
 * RFC 6145 translated, 6to4) are judged by that address; the translation and tunnelling
 * prefixes that reach arbitrary IPv4 hosts through a gateway (NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`, Teredo `2001::/32`), IPv4-compatible `::a.b.c.d` and the old site-local
 * `fec0::/10` are refused outright (ipaddr.js counts some of them as unicast).
 */
const refusedV6 = [
  ipaddr.IPv6.parseCIDR("::/96"), // IPv4-compatible (deprecated) and unspecified
  ipaddr.IPv6.parseCIDR("64:ff9b::/96"), // NAT64 well-known prefix
  ipaddr.IPv6.parseCIDR("64:ff9b:1::/48"), // NAT64 local-use prefix
  ipaddr.IPv6.parseCIDR("fec0::/10"), // site-local (deprecated, still routed inside sites)
  ipaddr.IPv6.parseCIDR("2001::/32"), // Teredo
];

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === "unicast";
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  if (refusedV6.some((cidr) => address.match(cidr))) return false;
  const range = address.range();
  const [, hi6to4 = 0, lo6to4 = 0, , , , high = 0, low = 0] = address.parts;
  if (range === "ipv4Mapped" || range === "rfc6145") return isPublicIPv4(ipv4Of(high, low));
  if (range === "6to4") return isPublicIPv4(ipv4Of(hi6to4, lo6to4));
  return range === "unicast";
}

const ipv4Of = (high: number, low: number) =>
  new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);

/**
 * IPv6 text in the URL standard's canonical form (hex groups only). ipaddr.js reads `::a.b.c.d`
 * as IPv4-mapped, while the socket connects to IPv4-compatible `::a.b.c.d`: judge what is dialled.
 */
const canonicalIPv6 = (text: string) => new URL(`http://[${text}]/`).hostname.slice(1, -1);

/** Names that always mean "this machine" or a cloud's metadata service (compared without trailing dots). */
const blockedNames = [
  /^localhost$/,
  /\.localhost$/,
  /\.local$/,
  /\.internal$/,
  /^metadata(\.goog)?$/,
  /^instance-data$/,
];

/** True for an address on the public internet. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const version = isIP(bare); // strict: no octal, hex or short IPv4 spellings
  if (version === 4) return isPublicIPv4(ipaddr.IPv4.parse(bare));
  if (version === 6) return isPublicIPv6(ipaddr.IPv6.parse(canonicalIPv6(bare)));
  return false;
}

/**
 * The refusal of a host whose DNS answer is not public. It says no more: "resolves to a private
 * address" would tell a caller which internal names exist (a DNS oracle on the service's network).
 */
export const URL_NOT_ALLOWED = "the URL is not allowed";

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_INSECURE_HOSTS: development hosts allowed over http and on private addresses. */
  allowInsecureHosts: readonly string[];
  /** How long resolving a delivery's host may take (a hanging resolver fails the attempt). */
  resolveTimeoutMs?: number;
  /** The resolver (tests give their own). */
  lookup?: (host: string) => Promise<{ address: string; family: number }[]>;
  /** DNS servers to ask instead of the system's (`host:port`; tests run their own). */
  dnsServers?: readonly string[];
}

/** A host as compared with names: lower case, without brackets or the root's trailing dots. */
const normalHost = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();

const invalid = (message: string) =>
  new CoreError("validation_error", `Webhook URL ${message}`, {
    issues: [{ path: "url", message }],
  });

/**
 * Checks a webhook URL without network access: https, at most 2000 characters, no credentials,
 * and a host that is neither a private/reserved address (in any spelling the URL parser accepts:
 * decimal, octal, hex, IPv4-mapped IPv6) nor a local or metadata name.
 */
export function checkWebhookUrl(raw: string, policy: UrlPolicy): URL {
  if (raw.length > 2000) throw invalid("must be at most 2000 characters");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("must be a valid URL");
  }
  const host = normalHost(url);
  const insecureAllowed = policy.allowInsecureHosts.some(
    (allowed) => allowed.toLowerCase() === host,
  );
  if (url.protocol !== "https:" && !(insecureAllowed && url.protocol === "http:"))
    throw invalid("must use https");
  if (url.username || url.password) throw invalid("must not contain credentials");
  if (insecureAllowed) return url;
  if (isIP(host)) {
    if (!isPublicAddress(host)) throw invalid("must point to a public address");
  } else if (blockedNames.some((name) => name.test(host)) || !host.includes(".")) {
    throw invalid("must name a public host");
  }
  return url;
}

/**
 * Resolves a webhook's host for a delivery and answers the address to connect to. Every address
 * the name resolves to must be public (a name pointing anywhere private is refused, so a DNS
 * answer cannot smuggle a private target in), unless the host is explicitly allowed.
 */
export async function resolveDeliveryAddress(
  url: URL,
  policy: UrlPolicy,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const allowed = policy.allowInsecureHosts.some((a) => a.toLowerCase() === normalHost(url));
  const version = isIP(host);
  const addresses = version
    ? [{ address: host, family: version as 4 | 6 }]
    : await resolveWithin(host, policy, allowed);
  if (addresses.length === 0) throw new CoreError("validation_error", `${host} does not resolve`);
  if (!allowed && addresses.some((a) => !isPublicAddress(a.address)))
    throw new CoreError("validation_error", URL_NOT_ALLOWED);
  return addresses[0] as { address: string; family: 4 | 6 };
}

/**
 * The configuration-time half of the check (`PUT /webhook`): a host name that resolves now to
 * a non-public address is refused (400 `validation_error` on `url`), not only at its first
 * delivery. A name that does not resolve (yet) is accepted: every delivery resolves it again.
 */
export async function checkWebhookTarget(url: URL, policy: UrlPolicy): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) || policy.allowInsecureHosts.some((a) => a.toLowerCase() === normalHost(url)))
    return;
  const addresses = await resolveWithin(host, policy, false).catch(() => []);
  if (addresses.some((a) => !isPublicAddress(a.address))) throw invalid(URL_NOT_ALLOWED);
}

type Resolved = { address: string; family: 4 | 6 }[];

/** Names that mean this machine by definition (RFC 6761), answered without asking DNS. */
const LOOPBACK: Resolved = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/**
 * One resolver per timeout: c-ares, with its own per-query timeout and tries, so a slow DNS
 * server cannot fill libuv's threadpool (`dns.lookup`), which file and crypto work share.
 */
const resolvers = new Map<string, Resolver>();
function resolverFor(timeoutMs: number, servers: readonly string[] | undefined): Resolver {
  const key = `${timeoutMs} ${servers?.join(",") ?? ""}`;
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = new Resolver({ timeout: Math.max(50, Math.floor(timeoutMs / 2)), tries: 2 });
    if (servers) resolver.setServers([...servers]);
    resolvers.set(key, resolver);
  }
  return resolver;
}

/** A and AAAA records of `host` from DNS; [] when it has none. */
async function resolveDns(
  host: string,
  timeoutMs: number,
  servers: readonly string[] | undefined,
): Promise<Resolved> {
  const resolver = resolverFor(timeoutMs, servers);
  const none = (error: NodeJS.ErrnoException) => {
    if (error.code === "ENOTFOUND" || error.code === "ENODATA") return [] as string[];
    throw error;
  };
  const [v4, v6] = await Promise.all([
    resolver.resolve4(host).catch(none),
    resolver.resolve6(host).catch(none),
  ]);
  return [
    ...v4.map((address) => ({ address, family: 4 as const })),
    ...v6.map((address) => ({ address, family: 6 as const })),
  ];
}

/** The default time a resolution may take when the policy names none. */
const RESOLVE_TIMEOUT_MS = 5000;

/**
 * The host's addresses, or a failure once `resolveTimeoutMs` has passed. DNS through c-ares;
 * `localhost` names are loopback; a development host of WEBHOOK_ALLOW_INSECURE_HOSTS is looked
 * up the system's way (it may live in /etc/hosts).
 */
async function resolveWithin(host: string, policy: UrlPolicy, allowed: boolean): Promise<Resolved> {
  const limit = policy.resolveTimeoutMs ?? RESOLVE_TIMEOUT_MS;
  const name = host.replace(/\.+$/, "").toLowerCase();
  const lookup: (name: string) => Promise<{ address: string; family: number }[]> =
    policy.lookup ??
    (/^localhost$|\.localhost$/.test(name)
      ? async () => LOOPBACK
      : allowed
        ? (n) => systemLookup(n, { all: true, verbatim: true })
        : (n) => resolveDns(n, limit, policy.dnsServers));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CoreError("validation_error", `${host} did not resolve within ${limit} ms`)),
      limit,
    );
  });
  try {
    return (await Promise.race([lookup(host), late])) as Resolved;
  } finally {
    clearTimeout(timer);
  }
}
