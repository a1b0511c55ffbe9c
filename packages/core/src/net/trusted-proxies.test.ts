import { describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { forwardedClient, isTrustedProxy, proxiedClient } from "./trusted-proxies";

describe("forwardedClient", () => {
  it("is the peer, whatever X-Forwarded-For says, when no proxy is trusted", () => {
    for (const claim of ["127.0.0.1", "::1", "1.2.3.4, 127.0.0.1"])
      expect(forwardedClient("203.0.113.9", claim, [])).toEqual({
        client: "203.0.113.9",
        hops: 0,
      });
  });

  it("is the peer when the peer is not a listed proxy", () => {
    expect(proxiedClient("203.0.113.9", "127.0.0.1", ["10.0.0.0/8", "::1"])).toBe("203.0.113.9");
  });

  it("walks back through listed proxies to the first address that is not one", () => {
    const trusted = ["10.0.0.0/8", "fd00::/8"];
    expect(forwardedClient("10.0.0.2", "127.0.0.1, 198.51.100.4", trusted)).toEqual({
      client: "198.51.100.4",
      hops: 1,
    });
    expect(forwardedClient("10.0.0.3", "1.2.3.4, 198.51.100.4, 10.0.0.2", trusted)).toEqual({
      client: "198.51.100.4",
      hops: 2,
    });
    expect(proxiedClient("fd00::1", "2001:db8::7", trusted)).toBe("2001:db8::7");
    // Only proxies all the way: the farthest one is the client.
    expect(forwardedClient("10.0.0.3", "10.0.0.1", trusted)).toEqual({
      client: "10.0.0.1",
      hops: 2,
    });
    // A listed proxy that forwarded nothing: the proxy itself, its own forwarded headers believed.
    expect(forwardedClient("10.0.0.3", null, trusted)).toEqual({ client: "10.0.0.3", hops: 1 });
  });

  it("is unknown without a peer", () => {
    expect(forwardedClient(undefined, "1.2.3.4", ["0.0.0.0/0"])).toEqual({ client: null, hops: 0 });
  });
});

describe("isTrustedProxy", () => {
  it("matches addresses, ranges and IPv4-mapped IPv6 peers; never garbage", () => {
    expect(isTrustedProxy("::ffff:10.1.2.3", ["10.0.0.0/8"])).toBe(true);
    expect(isTrustedProxy("127.0.0.1", ["127.0.0.1"])).toBe(true);
    expect(isTrustedProxy("127.0.0.2", ["127.0.0.1"])).toBe(false);
    expect(isTrustedProxy("::1", ["127.0.0.0/8"])).toBe(false);
    expect(isTrustedProxy("not-an-address", ["0.0.0.0/0"])).toBe(false);
  });
});

describe("TRUSTED_PROXIES", () => {
  it("is a comma list of addresses and CIDR ranges; anything else fails the boot", () => {
    expect(loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8, ::1" }).TRUSTED_PROXIES).toEqual([
      "10.0.0.0/8",
      "::1",
    ]);
    expect(loadConfig({}).TRUSTED_PROXIES).toEqual([]);
    expect(() => loadConfig({ TRUSTED_PROXIES: "10.0.0.0/33, proxy.local" })).toThrow(
      /"10\.0\.0\.0\/33" is not an IP address[\s\S]*"proxy\.local"/,
    );
  });

  it("replaces TRUST_PROXY_HOPS: a process still given it refuses to start", () => {
    expect(() => loadConfig({ TRUST_PROXY_HOPS: "1" })).toThrow(/replaced by TRUSTED_PROXIES/);
  });
});
