import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Test files share each worker's loaded modules (decision 0056): importing core afresh for
    // every file cost more than the tests themselves. Each file still makes its own database.
    isolate: false,
    globalSetup: ["../../packages/db/src/vitest-global-setup.ts"],
    // Some tests run the real CLI in subprocesses, rebuilding it first after a source change.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
