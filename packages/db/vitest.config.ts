import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { globalSetup: ["./src/vitest-global-setup.ts"], hookTimeout: 60_000 },
});
