import { describe, expect, it } from "vitest";
import { isHost, settleOriginHeaders } from "./console-origin";

type Raw = Record<string, string | string[] | undefined>;
/** Settled as sent from `peer`, with the proxies of 10.0.0.0/8 trusted when `trusted` is 1. */
const settle = (headers: Raw, trusted = 0, PUBLIC_URL?: string, peer = "10.0.0.2") => {
  const copy = { ...headers };
  const TRUSTED_PROXIES = trusted ? ["10.0.0.0/8"] : [];
  const refused = settleOriginHeaders(copy, peer, { TRUSTED_PROXIES, PUBLIC_URL });
  return { refused, headers: copy };
};

describe("isHost", () => {
  it("accepts names, addresses and ports", () => {
    for (const host of ["localhost", "localhost:3000", "127.0.0.1:80", "[::1]:3000", "a.example"])
      expect(isHost(host)).toBe(true);
  });

  it("refuses what a URL could not be built on", () => {
    for (const host of [
      "a:b:c",
      "[::1]:x",
      "",
      "a b",
      "a/b",
      "u@a",
      "a?b",
      "a#b",
      "a\\b",
      "a:99999",
    ])
      expect(isHost(host)).toBe(false);
  });
});

describe("settleOriginHeaders", () => {
  it("drops forwarded host and protocol when no proxy is trusted, odd or not", () => {
    for (const forwarded of ["evil.example", "a:b:c", "[::1]:x"]) {
      const { refused, headers } = settle({
        host: "localhost:3000",
        "x-forwarded-host": forwarded,
        "x-forwarded-proto": "https",
        "x-forwarded-port": "1",
      });
      expect(refused).toBeNull();
      expect(headers).toEqual({ host: "localhost:3000" });
    }
  });

  it("drops forwarded host and protocol from a peer that is not a listed proxy", () => {
    const { refused, headers } = settle(
      { host: "localhost:3000", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      1,
      undefined,
      "203.0.113.9",
    );
    expect(refused).toBeNull();
    expect(headers).toEqual({ host: "localhost:3000" });
  });

  it("counts the trusted proxies a request passed to find their entry", () => {
    // Two trusted proxies (10.0.0.1 appended by 10.0.0.2): the first one's values count.
    const { headers } = settle(
      {
        host: "a",
        "x-forwarded-for": "198.51.100.4, 10.0.0.1",
        "x-forwarded-host": "evil.example, console.example.com, inner.example",
      },
      1,
    );
    expect(headers["x-forwarded-host"]).toBe("console.example.com");
  });

  it("refuses a Host that is not a host", () => {
    expect(settle({ host: "a:b:c" }).refused).toMatch(/Host/);
    expect(settle({ host: "[::1]:x" }, 1).refused).toMatch(/Host/);
  });

  it("keeps the value the trusted proxy put, not one the client put in front", () => {
    const { refused, headers } = settle(
      {
        host: "10.0.0.2:3000",
        "x-forwarded-host": "evil.example, console.example.com",
        "x-forwarded-proto": "http, https",
      },
      1,
    );
    expect(refused).toBeNull();
    expect(headers["x-forwarded-host"]).toBe("console.example.com");
    expect(headers["x-forwarded-proto"]).toBe("https");
  });

  it("refuses odd trusted forwarded values cleanly", () => {
    expect(settle({ host: "a", "x-forwarded-host": "a:b:c" }, 1).refused).toMatch(/Forwarded-Host/);
    expect(settle({ host: "a", "x-forwarded-proto": "gopher" }, 1).refused).toMatch(/Proto/);
  });

  it("names PUBLIC_URL's origin whatever the request says", () => {
    const { refused, headers } = settle(
      { host: "10.0.0.2", "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" },
      1,
      "https://console.example.com",
    );
    expect(refused).toBeNull();
    expect(headers["x-forwarded-host"]).toBe("console.example.com");
    expect(headers["x-forwarded-proto"]).toBe("https");
  });
});
