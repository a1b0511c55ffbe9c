import { describe, expect, it } from "vitest";
import { clientNetwork, networkOf, PEER_HEADER } from "./client-network";

const headers = (peer: string | null, forwarded?: string) =>
  new Headers({
    ...(peer && { [PEER_HEADER]: peer }),
    ...(forwarded && { "x-forwarded-for": forwarded }),
  });

describe("clientNetwork", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientNetwork(headers("198.51.100.4", "1.2.3.4"), 0)).toBe("198.51.100.4");
    expect(clientNetwork(headers("::ffff:127.0.0.1"), 0)).toBe("127.0.0.1");
  });

  it("is the address a trusted proxy appended, not one the client put in front", () => {
    // client sent "1.2.3.4"; our proxy (the peer) appended the address it saw.
    expect(clientNetwork(headers("10.0.0.2", "1.2.3.4, 198.51.100.4"), 1)).toBe("198.51.100.4");
    expect(clientNetwork(headers("10.0.0.3", "1.2.3.4, 198.51.100.4, 10.0.0.2"), 2)).toBe(
      "198.51.100.4",
    );
    // Fewer hops than configured: the first address there is.
    expect(clientNetwork(headers("10.0.0.2"), 3)).toBe("10.0.0.2");
  });

  it("is unknown without a peer", () => {
    expect(clientNetwork(headers(null, "1.2.3.4"), 1)).toBeNull();
  });
});

describe("networkOf", () => {
  it("counts an IPv6 address by its /64", () => {
    expect(networkOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(networkOf("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(networkOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(networkOf("::1")).toBe("0:0:0:0::/64");
    expect(networkOf("[fe80::1%eth0]")).toBe("fe80:0:0:0::/64");
  });

  it("refuses what is not an address", () => {
    expect(networkOf("unknown")).toBeNull();
    expect(networkOf("1.2.3")).toBeNull();
  });
});
