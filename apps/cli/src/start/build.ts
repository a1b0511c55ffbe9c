import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../instance";

const webDir = path.join(repoRoot, "apps/web");
const buildStamp = () => path.join(webDir, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID");

/** Inputs of the web build: its own sources and every workspace package it compiles. */
const inputs = [
  "apps/web/app",
  "apps/web/src",
  "apps/web/next.config.ts",
  "apps/web/proxy.ts",
  "apps/web/instrumentation-client.ts",
  "apps/web/instrumentation.ts",
  "apps/web/package.json",
  "packages/contract/src",
  "packages/core/src",
  "packages/db/src",
  "package-lock.json",
].map((p) => path.join(repoRoot, p));

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** True when there is no production build or a source changed after it. */
export function webBuildIsStale(): boolean {
  if (!existsSync(buildStamp())) return true;
  const built = statSync(buildStamp()).mtimeMs;
  return inputs.some((input) => newestMtime(input) > built);
}

/** Runs `next build` when the build is missing or stale (types are `npm run typecheck`'s job). */
export function ensureWebBuild(log: (line: string) => void = console.log): void {
  if (!webBuildIsStale()) return;
  log("Building the web app (first start or sources changed)…");
  const result = spawnSync(process.execPath, [nextBin(), "build"], {
    cwd: webDir,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", SWITCHBOARD_BUILD_FOR_START: "1" },
  });
  if (result.status !== 0) throw new Error("next build failed");
}

export function nextBin(): string {
  return path.join(repoRoot, "node_modules/next/dist/bin/next");
}
