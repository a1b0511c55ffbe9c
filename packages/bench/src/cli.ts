import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";

/**
 * `npm run bench -- --bench=cli`: what one `switchboard` call costs in wall time, spawned as a user
 * runs it (median of 10, after one warm-up call that also builds the CLI if a source changed,
 * decision 0065): `--help`, which loads no command, and `user create`, which loads core and
 * writes to the database, beside a bare Node start, the same calls through `npm run -s cli`, and
 * the sources run through tsx as every call was before.
 * Targets (issue 41, an idle machine): `--help` ≤ 150 ms, a database command ≤ 400 ms.
 */
const RUNS = 10;
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const cliBin = path.join(repoRoot, "apps/cli/bin/switchboard.js");
const tsx = ["--import", "tsx", path.join(repoRoot, "apps/cli/src/main.ts")];

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const env = { ...process.env, DATABASE_URL: database.url };

/** Median wall time of `command args…` over RUNS runs, after one warm-up; each must exit 0. */
function medianMs(command: string, args: string[]): number {
  const once = () => {
    const started = performance.now();
    const run = spawnSync(command, args, {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (run.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${run.stderr}`);
    return performance.now() - started;
  };
  once();
  const samples = Array.from({ length: RUNS }, once).sort((a, b) => a - b);
  return Math.round(((samples[RUNS / 2 - 1] ?? 0) + (samples[RUNS / 2] ?? 0)) / 2);
}

try {
  const load = loadavg()[0]?.toFixed(2);
  const rows: [string, number, string][] = [
    ["`node -e 0` (a bare Node start, the floor)", medianMs(process.execPath, ["-e", "0"]), ""],
    ["`switchboard --help`", medianMs(process.execPath, [cliBin, "--help"]), "≤ 150"],
    ["`switchboard user create`", medianMs(process.execPath, [cliBin, "user", "create"]), "≤ 400"],
    ["`npm run -s cli -- --help`", medianMs("npm", ["run", "-s", "cli", "--", "--help"]), ""],
    // What every call cost before the CLI was built ahead of time (less the two npm starts).
    ["the sources through tsx, `--help`", medianMs(process.execPath, [...tsx, "--help"]), ""],
    [
      "the sources through tsx, `user create`",
      medianMs(process.execPath, [...tsx, "user", "create"]),
      "",
    ],
    [
      "`npm run -s cli -- user create`",
      medianMs("npm", ["run", "-s", "cli", "--", "user", "create"]),
      "",
    ],
  ];
  console.log(
    [
      `The CLI, wall time per call, median of ${RUNS} (load average ${load} when started)`,
      "",
      "| call | median ms | target ms (idle machine) |",
      "|---|---|---|",
      ...rows.map(([name, ms, target]) => `| ${name} | ${ms} | ${target} |`),
    ].join("\n"),
  );
} finally {
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
