import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./src/vitest-global-setup.ts"],
    // Creating databases from the template takes seconds on a busy machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
