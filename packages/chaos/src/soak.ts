import type { Check } from "./checks";

/** One look at the processes: resident memory of each (bytes), connections to the database. */
export interface Sample {
  atMs: number;
  connections: number;
  rss: Record<string, number>;
}

/** Growth over the last half above this is "memory keeps growing". */
export const MAX_RSS_SLOPE_BYTES_PER_MIN = 1024 * 1024;

/**
 * The most connections the run's processes can hold at once: every pool at its maximum and
 * every process's LISTEN connection. Pools open connections as concurrency needs them and close
 * them after a minute idle, so a count that climbs late in a run is a pool reaching a new peak
 * (a slow minute of the machine is enough); only a count above this is a leak (a pool or a
 * connection opened outside them). The figures are the services' own: the web process's pool
 * (createDb's default, apps/web/src/server/deps.ts), the worker's pool (apps/worker/src/main.ts)
 * and its job queue's (apps/worker/src/jobs/runner.ts), and the harness's own pool.
 */
export function connectionCeiling(options: {
  webs: number;
  workers: number;
  jobConcurrency: number;
  harnessPool: number;
}): number {
  const listen = 1;
  const web = 10 + listen;
  const worker = Math.max(10, options.jobConcurrency + 4) + listen + (options.jobConcurrency + 2);
  const harness = options.harnessPool + listen;
  return options.webs * web + options.workers * worker + harness;
}

/**
 * The soak's verdicts: every process's resident memory, fitted by least squares over the last
 * half of the samples, grows by at most 1 MiB a minute; the database connections never exceed
 * what the processes' pools can hold (`connectionCeiling`).
 */
export function soakChecks(samples: Sample[], maxConnections: number): Check[] {
  const checks: Check[] = [];
  const lastHalf = samples.slice(Math.floor(samples.length / 2));
  const names = Object.keys(samples[0]?.rss ?? {});
  const growing: string[] = [];
  const slopes: string[] = [];
  for (const name of names) {
    const points = lastHalf
      .filter((s) => (s.rss[name] ?? 0) > 0)
      .map((s) => [s.atMs / 60_000, s.rss[name] as number] as const);
    const perMin = slope(points);
    slopes.push(`${name} ${(perMin / 1024 / 1024).toFixed(2)} MiB/min`);
    if (perMin > MAX_RSS_SLOPE_BYTES_PER_MIN)
      growing.push(`${name} grows ${(perMin / 1024 / 1024).toFixed(2)} MiB/min`);
  }
  if (lastHalf.length < 3) growing.push(`only ${lastHalf.length} samples in the last half`);
  checks.push({
    name: "no process's memory keeps growing (slope over the last half)",
    ok: growing.length === 0,
    detail: growing.length ? growing.join("; ") : slopes.join(", "),
  });
  const counts = samples.map((s) => s.connections).filter((n) => n >= 0);
  const most = Math.max(...counts);
  const firstHalfMax = Math.max(...counts.slice(0, Math.ceil(counts.length / 2)));
  const lastQuarterMax = Math.max(...counts.slice(Math.floor((counts.length * 3) / 4)));
  checks.push({
    name: "database connections do not leak (never more than the pools hold)",
    ok: counts.length > 0 && most <= maxConnections,
    detail: counts.length
      ? `most ${most} of at most ${maxConnections}; first half ${firstHalfMax}, last quarter ${lastQuarterMax}`
      : "no connection count was read",
  });
  return checks;
}

/** Least-squares slope of y over x. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((s, [x]) => s + x, 0) / n;
  const meanY = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
