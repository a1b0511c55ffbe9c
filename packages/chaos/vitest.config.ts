import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../db/src/vitest-global-setup.ts"],
    testTimeout: 90_000,
    hookTimeout: 60_000,
  },
});
