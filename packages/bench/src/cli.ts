import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
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

/**
 * Medians over RUNS runs of `command args…` (after one warm-up; each must exit 0): wall time,
 * and CPU time (user + system) of the process and all it waited for, which a busy machine
 * stretches far less than wall time (Linux: the children's times in /proc/self/stat).
 */
function measure(command: string, args: string[]): { wallMs: number; cpuMs: number } {
  const once = () => {
    const cpuBefore = childrenCpuMs();
    const started = performance.now();
    const run = spawnSync(command, args, {
      cwd: repoRoot,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (run.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${run.stderr}`);
    return { wallMs: performance.now() - started, cpuMs: childrenCpuMs() - cpuBefore };
  };
  once();
  const samples = Array.from({ length: RUNS }, once);
  const median = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    return Math.round(((sorted[RUNS / 2 - 1] ?? 0) + (sorted[RUNS / 2] ?? 0)) / 2);
  };
  return {
    wallMs: median(samples.map((s) => s.wallMs)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
  };
}

/** CPU ms used so far by this process's waited-for children (cutime + cstime, in clock ticks). */
function childrenCpuMs(): number {
  // Fields after the command's closing parenthesis; cutime and cstime are the 16th and 17th.
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) * (1000 / CLOCK_TICKS);
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

try {
  const load = loadavg()[0]?.toFixed(2);
  const node = process.execPath;
  const rows: [string, { wallMs: number; cpuMs: number }, string][] = [
    ["`node -e 0` (a bare Node start, the floor)", measure(node, ["-e", "0"]), ""],
    ["`switchboard --help`", measure(node, [cliBin, "--help"]), "≤ 150"],
    ["`switchboard user create`", measure(node, [cliBin, "user", "create"]), "≤ 400"],
    ["`npm run -s cli -- --help`", measure("npm", ["run", "-s", "cli", "--", "--help"]), ""],
    [
      "`npm run -s cli -- user create`",
      measure("npm", ["run", "-s", "cli", "--", "user", "create"]),
      "",
    ],
    // What every call cost before the CLI was built ahead of time (less the two npm starts).
    ["the sources through tsx, `--help`", measure(node, [...tsx, "--help"]), ""],
    ["the sources through tsx, `user create`", measure(node, [...tsx, "user", "create"]), ""],
  ];
  console.log(
    [
      `The CLI, per call, medians of ${RUNS} (load average ${load} when started)`,
      "",
      "| call | wall ms | CPU ms | target, wall ms (idle machine) |",
      "|---|---|---|---|",
      ...rows.map(
        ([name, { wallMs, cpuMs }, target]) => `| ${name} | ${wallMs} | ${cpuMs} | ${target} |`,
      ),
    ].join("\n"),
  );
} finally {
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
