import { mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { runChaos } from "@switchboard/chaos";
import { servicePort } from "../support/ports";
import { expect, test } from "../support/test";

/**
 * The chaos run, 30 seconds of it (`npm run chaos` runs 3 minutes): two web processes and two
 * workers under a mixed load of sends, proposals, decisions, long-polls, streams and webhooks;
 * Postgres restarts at 10 s and a random process is SIGKILLed at 20 s. Every check must hold:
 * nothing answered or committed is lost or doubled, and no client ever saw a 500.
 */
// One retry: a harness-side socket error (read ECONNRESET, no stack, in this test process, not
// in a service process) ended one run of about five right after the Postgres restart. Its source
// is not found yet; the run now writes such an error in its ledger, naming the socket's
// destination and where it was opened (harness-sockets.ts), instead of ending. A failed check
// still fails both attempts.
test.describe.configure({ retries: 1 });

test("30 s of chaos: a Postgres restart and a kill lose and repeat nothing", async () => {
  test.setTimeout(300_000);
  const logFile = path.resolve(import.meta.dirname, "../../test-results/chaos-services.log");
  mkdirSync(path.dirname(logFile), { recursive: true });
  openSync(logFile, "w");
  const report = await runChaos({
    durationMs: 30_000,
    soak: false,
    seed: 27,
    basePort: servicePort("chaos"),
    logFile,
    // The run's global setup built the web app (NEXT_DIST_DIR); the chaos cluster serves it.
    build: false,
    log: () => {},
  });
  const failed = report.checks.filter((check) => !check.ok);
  expect(failed.map((check) => `${check.name}: ${check.detail}`)).toEqual([]);
  expect(report.checks.length).toBeGreaterThan(5);
  const faults = report.ledger.faults.map((fault) => fault.what);
  expect(faults.some((what) => what.startsWith("postgres"))).toBe(true);
  expect(faults.some((what) => what.startsWith("kill"))).toBe(true);
  expect(report.world.sent.length).toBeGreaterThan(50);
  expect(report.deliveries).toBeGreaterThan(0);
});
