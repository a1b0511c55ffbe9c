import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../packages/db/src/vitest-global-setup.ts"],
    // Every assertion spawns the real CLI (a Node process); give a loaded machine room.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
