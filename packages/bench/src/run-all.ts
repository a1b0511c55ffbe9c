import { spawnSync } from "node:child_process";

/**
 * `npm run bench [-- --quick] [--bench=memory,memory-ws]`: every benchmark (or those named) in
 * turn, each in its own process (each starts and stops its own database and service), with this
 * command's other arguments.
 */
const benches = [
  "http.ts",
  "two-process.ts",
  "main.ts",
  "stream.ts",
  "stream-scale.ts",
  "webhooks.ts",
  "scale.ts",
  "memory.ts",
  "memory-ws.ts",
  "console.ts",
  "cli.ts",
  "capacity.ts",
  "round-trips.ts",
];
const args = process.argv.slice(2);
const only = args
  .find((arg) => arg.startsWith("--bench="))
  ?.slice("--bench=".length)
  .split(",")
  .map((name) => `${name.replace(/\.ts$/, "")}.ts`);
const unknown = only?.filter((name) => !benches.includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`No such benchmark: ${unknown.join(", ")} (one of: ${benches.join(", ")})`);
  process.exit(2);
}
for (const bench of benches.filter((name) => !only || only.includes(name))) {
  const run = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      new URL(bench, import.meta.url).pathname,
      ...args.filter((arg) => !arg.startsWith("--bench=")),
    ],
    { stdio: "inherit" },
  );
  if (run.status !== 0) process.exit(run.status ?? 1);
}
