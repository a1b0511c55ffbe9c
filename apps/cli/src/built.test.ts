import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleIsFresh, inputsFile } from "../scripts/fresh.mjs";
import { cliBin, runInProcess } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let dir: string;
beforeAll(async () => {
  t = await createTestDeps();
  dir = mkdtempSync(path.join(tmpdir(), "cli-built-"));
  // A module loader hook that writes down every module the program loads, one URL a line.
  writeFileSync(
    path.join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.LOADED_LOG, url + "\\n");
  return next(url, context);
}`,
  );
  writeFileSync(
    path.join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);`,
  );
});
afterAll(() => t.close());

/** `node bin/switchboard.js …` as a user runs it, and every module it loaded. */
async function run(name: string, ...args: string[]) {
  const log = path.join(dir, `${name}.log`);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", pathToFileURL(path.join(dir, "register.mjs")).href, cliBin, ...args],
    { env: { ...process.env, DATABASE_URL: t.config.DATABASE_URL, LOADED_LOG: log } },
  );
  const loaded = readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith("file:") && !url.endsWith("/register.mjs"));
  return { stdout, loaded };
}

describe("the built CLI (decision 0065)", () => {
  it("runs without tsx: JavaScript only, built ahead of time", async () => {
    const { stdout, loaded } = await run("create", "user", "create", "--name", "Built");
    expect(JSON.parse(stdout).user.displayName).toBe("Built");
    expect(
      loaded.filter((url) => url.endsWith(".ts") || url.includes("/node_modules/tsx/")),
    ).toEqual([]);
    // Its own group and no other.
    expect(loaded.some((url) => /\/dist\/user-\w+\.js$/.test(url))).toBe(true);
    expect(loaded.some((url) => /\/dist\/trigger-\w+\.js$/.test(url))).toBe(false);
    // Core without what a CLI call does not use (issue 41): the metrics registry (nothing is
    // served) and the pretty logger (its output is not a terminal).
    expect(loaded.filter((url) => /\/node_modules\/(prom-client|pino-pretty)\//.test(url))).toEqual(
      [],
    );
  });

  it("answers --help from what it was built with: no command group, nothing from node_modules", async () => {
    const { stdout, loaded } = await run("help", "--help");
    expect(stdout).toBe((await runInProcess(t.config.DATABASE_URL as string, ["--help"])).stdout);
    expect(loaded.filter((url) => url.includes("/node_modules/") || url.endsWith(".ts"))).toEqual(
      [],
    );
    expect(loaded.filter((url) => /\/dist\/user-\w+\.js$/.test(url))).toEqual([]);
  });

  it("is rebuilt before it runs when a file it was built from changed since, by each CLI started", async () => {
    const stamp = JSON.parse(readFileSync(inputsFile, "utf8")) as {
      inputs: Record<string, number>;
    };
    const [file] = Object.keys(stamp.inputs).filter((input) => input.endsWith("usage.ts"));
    expect(file).toBeDefined();
    // As an editor saving the file would leave it (the same bytes: the bundle is the same).
    const now = new Date();
    utimesSync(file as string, now, now);
    expect(bundleIsFresh()).toBe(false);
    // Several at once, as test files start them: each rebuilds, none reads a half-written file.
    const runs = await Promise.all([1, 2, 3].map((i) => run(`after-edit-${i}`, "--help")));
    expect(bundleIsFresh()).toBe(true);
    for (const { stdout } of runs) expect(stdout).toContain("  user create ");
  });

  it("counts a bundle stale when a source's mtime differs either way, or the source is gone", () => {
    const source = path.join(dir, "source.ts");
    writeFileSync(source, "export {};\n");
    const stamp = path.join(dir, "inputs.json");
    const record = (inputs: Record<string, number>) =>
      writeFileSync(stamp, JSON.stringify({ inputs }));
    const mtime = (file: string) => statSync(file).mtimeMs;
    record({ [source]: mtime(source) });
    expect(bundleIsFresh(stamp)).toBe(true);
    record({ [source]: mtime(source) + 1 }); // restored from a cache made before an edit
    expect(bundleIsFresh(stamp)).toBe(false);
    record({ [source]: mtime(source), [path.join(dir, "gone.ts")]: 1 });
    expect(bundleIsFresh(stamp)).toBe(false);
    expect(bundleIsFresh(path.join(dir, "never-built.json"))).toBe(false);
  });
});
