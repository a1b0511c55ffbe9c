import { describe, expect, it } from "vitest";
import { clientNetwork, networkOf, PEER_HEADER } from "./client-network";

const headers = (peer: string | null, forwarded?: string) =>
  new Headers({
    ...(peer && { [PEER_HEADER]: peer }),
    ...(forwarded && { "x-forwarded-for": forwarded }),
  });

describe("clientNetwork", () => {
  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientNetwork(headers("198.51.100.4", "1.2.3.4"), [])).toBe("198.51.100.4");
    expect(clientNetwork(headers("::ffff:127.0.0.1"), [])).toBe("127.0.0.1");
  });

  it("is the socket's peer when the peer is not a listed proxy: rotating the header buys nothing", () => {
    for (const forwarded of ["1.2.3.4", "5.6.7.8", "127.0.0.1"])
      expect(clientNetwork(headers("198.51.100.4", forwarded), ["10.0.0.0/8"])).toBe(
        "198.51.100.4",
      );
  });

  it("is the address a trusted proxy appended, not one the client put in front", () => {
    // client sent "1.2.3.4"; our proxy (the peer) appended the address it saw.
    const proxies = ["10.0.0.0/8"];
    expect(clientNetwork(headers("10.0.0.2", "1.2.3.4, 198.51.100.4"), proxies)).toBe(
      "198.51.100.4",
    );
    expect(clientNetwork(headers("10.0.0.3", "1.2.3.4, 198.51.100.4, 10.0.0.2"), proxies)).toBe(
      "198.51.100.4",
    );
    // A listed proxy that forwarded nothing: the proxy itself.
    expect(clientNetwork(headers("10.0.0.2"), proxies)).toBe("10.0.0.2");
  });

  it("is unknown without a peer", () => {
    expect(clientNetwork(headers(null, "1.2.3.4"), ["0.0.0.0/0"])).toBeNull();
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
