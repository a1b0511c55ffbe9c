import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // tsconfig keeps JSX for Next; tests of components compile it themselves.
  oxc: { jsx: { runtime: "automatic" } },
  resolve: {
    alias: {
      "~": fileURLToPath(new URL("./src", import.meta.url)),
      // `server-only` throws outside Next's server bundle; tests are server code too.
      "server-only": fileURLToPath(new URL("./src/server/testing/empty.ts", import.meta.url)),
    },
  },
  test: {
    // Test files share each worker's loaded modules (decision 0056): importing core afresh for
    // every file cost more than the tests themselves. Each file still makes its own database.
    isolate: false,
    globalSetup: ["../../packages/db/src/vitest-global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
