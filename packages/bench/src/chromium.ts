import type { LaunchOptions } from "@playwright/test";

/**
 * How the console's Chromium is launched on this machine, for the browser specs (e2e), the
 * console benchmark and the screenshots alike: headless, the system's binary
 * (`CHROMIUM_PATH`), nothing in the background that would skew a measure.
 */
export const consoleChromium: LaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
  ],
};
