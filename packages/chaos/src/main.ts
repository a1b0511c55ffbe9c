import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ChaosReport, runChaos } from "./run-chaos";
import { runUpgrade } from "./upgrade";

/**
 * `npm run chaos [-- --duration 3m] [--soak 20m] [--port 3400] [--seed 7] [--no-build]`: the chaos run
 * (default 3 minutes) or, with `--soak`, the soak (no faults, memory and connections sampled).
 * Prints the checks and a table of counts; exits 1 when a check failed. `--upgrade [ref]`: the
 * upgrade run (upgrade.ts) from the previous release instead.
 */
const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};

function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${text} (say 30s, 3m, 1h)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? "s"] as number;
  return Math.round(Number(match[1]) * unit);
}

/**
 * postgres.js 3.4.9 may throw from a timer when Postgres cuts a connection with a write queued
 * (porsager/postgres#1154: `socket` is null in `nextWrite`); the query already failed with
 * CONNECTION_CLOSED. The people's side of the run survives it and counts it.
 */
let driverCrashes = 0;
process.on("uncaughtException", (error) => {
  if (error instanceof TypeError && /nextWrite/.test(error.stack ?? "")) {
    driverCrashes++;
    console.log(
      `chaos: postgres.js threw from nextWrite (${driverCrashes}); see porsager/postgres#1154`,
    );
    return;
  }
  throw error;
});

const soak = flag("soak");
const durationMs = parseDuration(soak ?? flag("duration") ?? "3m");
const seed = Number(flag("seed") ?? Date.now() % 100_000);
const port = flag("port");
const logFile =
  flag("log-file") ??
  path.join(mkdtempSync(path.join(tmpdir(), "switchboard-chaos-")), "services.log");
console.log(`chaos: service output in ${logFile}`);

if (args.includes("--upgrade")) {
  const ref = flag("upgrade");
  const ok = await runUpgrade({
    ref: ref && !ref.startsWith("--") ? ref : undefined,
    logFile,
    log: (line) => console.log(line),
  });
  process.exit(ok ? 0 : 1);
}

const report = await runChaos({
  durationMs,
  soak: soak !== undefined,
  basePort: port ? Number(port) : undefined,
  seed,
  logFile,
  build: !args.includes("--no-build"),
  log: (line) => console.log(line),
});
console.log(formatReport(report, seed));
// Explicitly: an embedded Postgres's exit hooks would otherwise turn a failure into 0.
process.exit(report.ok ? 0 : 1);

function formatReport(report: ChaosReport, seedUsed: number): string {
  const { ledger } = report;
  const lines = ["", "Checks"];
  for (const check of report.checks)
    lines.push(`  ${check.ok ? "PASS" : "FAIL"}  ${check.name}\n        ${check.detail}`);
  lines.push("", "Requests (kind: outcome count)");
  for (const [kind, outcomes] of [...ledger.outcomes].sort())
    lines.push(
      `  ${kind.padEnd(34)} ${[...outcomes].map(([outcome, n]) => `${outcome}: ${n}`).join("  ")}`,
    );
  const rows: [string, string | number][] = [
    ["requests", ledger.total()],
    ["events committed", report.events],
    ["webhook deliveries", report.deliveries],
    ["sends answered", report.world.sent.length],
    ["proposals", report.world.proposals.length],
    ["stream reconnects", ledger.reconnects],
    ["kills", ledger.faults.filter((f) => f.what.startsWith("kill")).length],
    ["postgres restarts", ledger.faults.filter((f) => f.what.startsWith("postgres")).length],
    ["tolerated failures", ledger.tolerated.length],
    ["seed", seedUsed],
  ];
  lines.push("", "Counts");
  for (const [name, value] of rows) lines.push(`  ${name.padEnd(22)} ${value}`);
  if (ledger.faults.length) {
    lines.push("", "Faults (at → answering again)");
    for (const fault of ledger.faults)
      lines.push(
        `  ${fault.what.padEnd(22)} at ${(fault.atMs / 1000).toFixed(1).padStart(6)} s   recovered in ${fault.recoveryMs ?? "?"} ms`,
      );
  }
  const { cpu, sends } = report.load;
  const group = (name: string, ms: number) =>
    `  ${name.padEnd(12)} ${(ms / cpu.seconds / 1000).toFixed(2).padStart(5)} cores  ${(ms / Math.max(sends, 1)).toFixed(2).padStart(6)} ms per send`;
  lines.push(
    "",
    `Load (${cpu.seconds.toFixed(0)} s, faults included): ${sends} sends answered, ${(sends / cpu.seconds).toFixed(1)}/s; CPU by process group (all the load's work, per send)`,
    group("web (2)", cpu.web),
    group("workers (2)", cpu.workers),
    group("Postgres", cpu.postgres),
    group("harness", cpu.harness),
    group("neighbours", cpu.neighbours),
  );
  if (report.samples.length) {
    lines.push("", "Samples (s: connections, RSS MiB per process)");
    for (const sample of report.samples)
      lines.push(
        `  ${(sample.atMs / 1000).toFixed(0).padStart(5)}: ${String(sample.connections).padStart(3)}  ${Object.entries(
          sample.rss,
        )
          .map(([name, bytes]) => `${name} ${(bytes / 1024 / 1024).toFixed(0)}`)
          .join("  ")}`,
      );
  }
  lines.push("", report.ok ? "chaos: all checks passed" : "chaos: CHECKS FAILED");
  return lines.join("\n");
}
