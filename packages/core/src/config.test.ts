import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config";

it("checks LOG_LEVEL and LOG_FORMAT at start like every other variable, naming each bad one", () => {
  expect(loadConfig({ LOG_LEVEL: "debug", LOG_FORMAT: "json" })).toMatchObject({
    LOG_LEVEL: "debug",
    LOG_FORMAT: "json",
  });
  let failure: unknown;
  try {
    loadConfig({ LOG_LEVEL: "verbose", LOG_FORMAT: "xml", PORT: "http" });
  } catch (error) {
    failure = error;
  }
  expect(failure).toBeInstanceOf(ConfigError);
  expect((failure as ConfigError).problems.map((problem) => problem.split(":")[0]).sort()).toEqual([
    "LOG_FORMAT",
    "LOG_LEVEL",
    "PORT",
  ]);
});

it("a bad LOG_LEVEL reaches the config check: loading the logger does not throw first", async () => {
  const { execFile } = await import("node:child_process");
  const { promisify } = await import("node:util");
  const start = `import("./src/index.ts").then((core) => core.loadConfig())`;
  const failed = await promisify(execFile)(process.execPath, ["--import", "tsx", "-e", start], {
    cwd: new URL("..", import.meta.url),
    env: { PATH: process.env.PATH, LOG_LEVEL: "verbose" },
  }).catch((error: { stderr: string }) => error);
  expect((failed as { stderr: string }).stderr).toContain("Invalid configuration");
  expect((failed as { stderr: string }).stderr).toContain("LOG_LEVEL");
});
