import { describe, expect, it } from "vitest";
import { requestOrigin, sameOriginRedirect } from "./options";

describe("requestOrigin", () => {
  it("is the Host the request came to, over http", () => {
    expect(requestOrigin(new Headers({ host: "localhost:3210" }))).toBe("http://localhost:3210");
  });

  it("prefers what a proxy forwarded (first value of a list)", () => {
    const headers = new Headers({
      host: "127.0.0.1:3000",
      "x-forwarded-host": "console.example.com, proxy.internal",
      "x-forwarded-proto": "https,http",
    });
    expect(requestOrigin(headers)).toBe("https://console.example.com");
  });

  it("is unknown without a host", () => {
    expect(requestOrigin(new Headers())).toBeUndefined();
  });
});

describe("sameOriginRedirect", () => {
  const origin = "http://localhost:3210";

  it("keeps paths and URLs on the origin", () => {
    expect(sameOriginRedirect("/signin", origin)).toBe("http://localhost:3210/signin");
    expect(sameOriginRedirect("http://localhost:3210/agents?x=1", origin)).toBe(
      "http://localhost:3210/agents?x=1",
    );
  });

  it("sends anything else to the origin's root", () => {
    expect(sameOriginRedirect("https://evil.example/steal", origin)).toBe(origin);
    expect(sameOriginRedirect("//evil.example/steal", origin)).toBe(origin);
    expect(sameOriginRedirect("http://localhost:3000/agents", origin)).toBe(origin);
    expect(sameOriginRedirect("not a url", origin)).toBe(origin);
  });
});
