import { spawnSync } from "node:child_process";

/**
 * `npm run bench [-- --quick]`: every benchmark in turn, each in its own process (each starts and
 * stops its own database and service), with this command's arguments.
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
];
for (const bench of benches) {
  const run = spawnSync(
    process.execPath,
    ["--import", "tsx", new URL(bench, import.meta.url).pathname, ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  if (run.status !== 0) process.exit(run.status ?? 1);
}
