import { describe, expect, it } from "vitest";
import { config } from "../../proxy";

/** Whether Next would run the proxy on `path` (its matcher sources are anchored regexes). */
const proxied = (path: string) =>
  config.matcher.some(({ source }) => new RegExp(`^${source}$`).test(path));

describe("the console proxy's matcher", () => {
  it("runs on console pages", () => {
    for (const path of ["/", "/chats", "/signin", "/docs", "/agents/agt_x/webhook"])
      expect(proxied(path), path).toBe(true);
  });

  it("never runs on the APIs (agents, developers, tRPC, next-auth): bodies there are capped as they stream", () => {
    for (const path of [
      "/api",
      "/api/agent/v1/messages",
      "/api/agent/v1/mcp",
      "/api/v1/me/messages",
      "/api/trpc/chats.send",
      "/api/auth/callback/credentials",
      "/_next/static/x.js",
    ])
      expect(proxied(path), path).toBe(false);
  });
});
