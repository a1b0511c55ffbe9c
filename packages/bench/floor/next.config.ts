import type { NextConfig } from "next";

// The bench's floor app: kept apart from the service's build (its own dist directory).
const config: NextConfig = { distDir: ".next-floor", poweredByHeader: false };
export default config;
