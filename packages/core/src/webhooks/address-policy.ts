import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { CoreError } from "../errors";

/**
 * Where webhooks may point: https URLs on public hosts only. Checked when a webhook is set and
 * again before every delivery, after DNS resolution, on the very address the request connects to.
 */

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local (incl. fd00:ec2::254, a metadata address)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

/** Names that always mean "this machine" or a cloud's metadata service. */
const blockedNames = [
  /^localhost$/,
  /\.localhost$/,
  /\.local$/,
  /\.internal$/,
  /^metadata(\.goog)?$/,
  /^instance-data$/,
];

/** IPv4 inside an IPv6 address (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, IPv4-compatible). */
function embeddedIPv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join(".");
  }
  return null;
}

/** True for an address on the public internet. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const version = isIP(bare);
  if (version === 4) return !blocked.check(bare, "ipv4");
  if (version === 6) {
    const v4 = embeddedIPv4(bare);
    if (v4) return !blocked.check(v4, "ipv4");
    return !blocked.check(bare, "ipv6");
  }
  return false;
}

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_INSECURE_HOSTS: development hosts allowed over http and on private addresses. */
  allowInsecureHosts: readonly string[];
}

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
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
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
  const allowed = policy.allowInsecureHosts.some((a) => a.toLowerCase() === host.toLowerCase());
  const version = isIP(host);
  const addresses = version
    ? [{ address: host, family: version as 4 | 6 }]
    : ((await lookup(host, { all: true, verbatim: true })) as { address: string; family: 4 | 6 }[]);
  if (addresses.length === 0) throw new CoreError("validation_error", `${host} does not resolve`);
  if (!allowed && addresses.some((a) => !isPublicAddress(a.address)))
    throw new CoreError("validation_error", `${host} resolves to a non-public address`);
  return addresses[0] as { address: string; family: 4 | 6 };
}
