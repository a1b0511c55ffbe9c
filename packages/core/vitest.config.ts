import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Test files share each worker's loaded modules (decision 0056): importing core afresh for
    // every file cost more than the tests themselves. Each file still makes its own database.
    isolate: false,
    globalSetup: ["../db/src/vitest-global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
