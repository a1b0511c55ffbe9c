import { defineConfig } from "@playwright/test";
import { consoleChromium } from "@switchboard/bench/chromium";

/** The service under test listens here (started by support/global-setup.ts). */
const port = Number(process.env.E2E_PORT ?? 3210);
process.env.E2E_PORT = String(port);
process.env.E2E_WS_PORT ??= String(port + 1);

export default defineConfig({
  testDir: ".",
  globalSetup: "./support/global-setup.ts",
  fullyParallel: true,
  workers: 2,
  forbidOnly: true,
  retries: 0,
  // Generous: CI runs two browsers, the service and Postgres on two cores. Speed is measured in
  // `npm run bench`, never here.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  outputDir: "../test-results/e2e",
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
  },
  projects: [
    { name: "api", testMatch: "api/**/*.spec.ts", testIgnore: "api/chaos.spec.ts" },
    // The chaos run starts four service processes of its own and restarts a Postgres: it runs
    // after every other spec, so neither slows the other into a timeout.
    { name: "chaos", testMatch: "api/chaos.spec.ts", dependencies: ["api", "console"] },
    {
      name: "console",
      testMatch: "console/**/*.spec.ts",
      use: {
        browserName: "chromium",
        viewport: { width: 1280, height: 800 },
        launchOptions: consoleChromium,
      },
    },
  ],
});
