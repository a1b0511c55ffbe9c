import { describe, expect, it } from "vitest";
import { connectionCeiling, type Sample, soakChecks } from "./soak";

const MiB = 1024 * 1024;
/** The chaos cluster's ceiling: two web processes, two workers, 10 jobs each, a pool of 4. */
const ceiling = connectionCeiling({ webs: 2, workers: 2, jobConcurrency: 10, harnessPool: 4 });

/** A sample every 10 s: connections as given, one process whose RSS grows `perMin` MiB a minute. */
function samples(connections: number[], perMin = 0): Sample[] {
  return connections.map((n, i) => ({
    atMs: i * 10_000,
    connections: n,
    rss: { web1: (150 + (perMin * i) / 6) * MiB },
  }));
}

const verdict = (list: Sample[], name: string) =>
  soakChecks(list, ceiling).find((check) => check.name.includes(name));

describe("soak checks", () => {
  it("counts every pool at its maximum and every LISTEN connection", () => {
    // web 10 + 1 each; worker 14 + 1 + 12 each; the harness 4 + 1.
    expect(ceiling).toBe(2 * 11 + 2 * 27 + 5);
  });

  it("passes pools that reach a new peak late in the run, within what they can hold", () => {
    // The 20-minute soak's shape: at most 44 in the first half, 50 in the last quarter.
    const counts = [...Array(60).fill(40), 44, ...Array(59).fill(41), ...Array(20).fill(50)];
    expect(verdict(samples(counts), "connections")?.ok).toBe(true);
  });

  it("fails a count above what the pools can hold", () => {
    const counts = [...Array(60).fill(40), ceiling + 1];
    const check = verdict(samples(counts), "connections");
    expect(check?.ok).toBe(false);
    expect(check?.detail).toContain(`most ${ceiling + 1} of at most ${ceiling}`);
  });

  it("fails a run whose connection count was never read", () => {
    expect(verdict(samples([-1, -1, -1]), "connections")?.ok).toBe(false);
  });

  it("fails memory that keeps growing and passes memory that is flat", () => {
    expect(verdict(samples(Array(60).fill(40), 3), "memory")?.ok).toBe(false);
    expect(verdict(samples(Array(60).fill(40), 0.2), "memory")?.ok).toBe(true);
  });
});
