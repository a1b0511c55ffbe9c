import { timingSafeEqual } from "node:crypto";
import { applicationName } from "@switchboard/db";
import type { Metric } from "prom-client";
import type { CoreDeps } from "./deps";
import { type JobQueueDepth, readJobQueue } from "./jobs/job-queue";

/**
 * The process's Prometheus metrics (prom-client's default registry, served at `/metrics` on the
 * web app and the worker, behind METRICS_TOKEN when set). Metrics are created once per process,
 * whichever module asks first: Next may load this module more than once, the registry is one.
 * Recording is in-memory only; anything that needs the database is read when scraped.
 */

/**
 * A process that serves no metrics says so before it imports core, by setting this on
 * globalThis: the CLI does (apps/cli/src/main.ts). There prom-client is never imported (~70 ms
 * of a CLI call's CPU, issue 41) and every metric records nothing.
 */
export const NO_METRICS = "__switchboardNoMetrics";

const prom = (globalThis as Record<string, unknown>)[NO_METRICS]
  ? undefined
  : await import("prom-client");

/** What a metric is where none are served: every recording a no-op, every read empty. */
const inert = {
  inc() {},
  dec() {},
  set() {},
  observe() {},
  reset() {},
  async get() {
    return { name: "", help: "", type: "counter", values: [], aggregator: "sum" };
  },
};

function once<M extends Metric>(name: string, make: (p: typeof import("prom-client")) => M): M {
  if (!prom) return inert as unknown as M;
  return (prom.register.getSingleMetric(name) as M | undefined) ?? make(prom);
}

if (prom && !prom.register.getSingleMetric("process_cpu_seconds_total"))
  prom.collectDefaultMetrics();

export const metrics = {
  requestSeconds: once(
    "switchboard_http_request_duration_seconds",
    (p) =>
      new p.Histogram({
        name: "switchboard_http_request_duration_seconds",
        help: "API request latency by surface, route (operation id) and status",
        labelNames: ["surface", "route", "status"],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
      }),
  ),
  refusals: once(
    "switchboard_refusals_total",
    (p) =>
      new p.Counter({
        name: "switchboard_refusals_total",
        help: "API and stream answers with an error, by code",
        labelNames: ["code"],
      }),
  ),
  eventsAppended: once(
    "switchboard_events_appended_total",
    (p) =>
      new p.Counter({
        name: "switchboard_events_appended_total",
        help: "Events written to the event log, by type",
        labelNames: ["type"],
      }),
  ),
  deliveries: once(
    "switchboard_webhook_deliveries_total",
    (p) =>
      new p.Counter({
        name: "switchboard_webhook_deliveries_total",
        help: "Webhook delivery attempts by outcome",
        labelNames: ["outcome"],
      }),
  ),
  webhookRecordFailures: once(
    "switchboard_webhook_record_failures_total",
    (p) =>
      new p.Counter({
        name: "switchboard_webhook_record_failures_total",
        help: "Webhook attempts made but not recorded as they were (the drain moved on)",
      }),
  ),
  drainTakes: once(
    "switchboard_webhook_drain_takes_total",
    (p) =>
      new p.Counter({
        name: "switchboard_webhook_drain_takes_total",
        help: "Tries to take an agent's webhook drain lease: taken, or held by another worker",
        labelNames: ["outcome"],
      }),
  ),
  deliveryLag: once(
    "switchboard_webhook_delivery_lag_seconds",
    (p) =>
      new p.Histogram({
        name: "switchboard_webhook_delivery_lag_seconds",
        help: "From an event's commit to its webhook receiver's 2xx, retries included",
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
      }),
  ),
  webhookBatches: once(
    "switchboard_webhook_statement_batch_size",
    (p) =>
      new p.Histogram({
        name: "switchboard_webhook_statement_batch_size",
        help: "Agents' webhook reads (due_read) or delivered attempts (settle) one statement carries",
        labelNames: ["statement"],
        buckets: [1, 2, 5, 10, 25, 50, 100, 200],
      }),
  ),
  jobs: once(
    "switchboard_jobs_total",
    (p) =>
      new p.Counter({
        name: "switchboard_jobs_total",
        help: "Jobs run by this worker, by name and outcome",
        labelNames: ["job", "outcome"],
      }),
  ),
  streamConnections: once(
    "switchboard_stream_connections",
    (p) => new p.Gauge({ name: "switchboard_stream_connections", help: "Open stream connections" }),
  ),
  streamFrames: once(
    "switchboard_stream_frames_total",
    (p) =>
      new p.Counter({
        name: "switchboard_stream_frames_total",
        help: "Stream frames by direction (in: from agents, out: to agents)",
        labelNames: ["direction"],
      }),
  ),
  parkedPolls: once(
    "switchboard_longpolls_parked",
    (p) =>
      new p.Gauge({
        name: "switchboard_longpolls_parked",
        help: "GET /updates calls waiting for events",
      }),
  ),
};

/** Kept on globalThis, as the registry is: Next may load this module more than once. */
const scraped = globalThis as typeof globalThis & { __switchboardMetricsDeps?: CoreDeps };

/**
 * What only Postgres knows, read when scraped: the job queue as a whole (every worker's jobs
 * ready to run, and the age of the oldest), and this process's pool (its connections open and
 * busy, out of its size). Registered by the process that can read them.
 */
export function registerDatabaseMetrics(deps: CoreDeps): void {
  // The gauges read through the deps registered last: a process has one, but test files that
  // share a process each register their own, and an earlier file's are closed.
  scraped.__switchboardMetricsDeps = deps;
  if (!prom || prom.register.getSingleMetric("switchboard_job_queue_ready")) return;
  const { Gauge } = prom;
  const current = () => scraped.__switchboardMetricsDeps ?? deps;
  // One read serves both gauges of a scrape.
  let last: Promise<JobQueueDepth> | null = null;
  const read = () => {
    last ??= readJobQueue(current()).finally(() => setTimeout(() => (last = null), 1000));
    return last;
  };
  new Gauge({
    name: "switchboard_job_queue_ready",
    help: "Jobs due and waiting for a worker",
    async collect() {
      this.set((await read()).ready);
    },
  });
  new Gauge({
    name: "switchboard_job_queue_oldest_seconds",
    help: "Age of the oldest job waiting for a worker",
    async collect() {
      this.set((await read()).oldestSeconds);
    },
  });
  new Gauge({
    name: "switchboard_db_pool_size",
    help: "Connections this process's pool may open",
    collect() {
      this.set(current().sql.options.max);
    },
  });
  new Gauge({
    name: "switchboard_db_pool_connections",
    help: "This process's open connections by state (active: running a statement; the scrape's own is not counted)",
    labelNames: ["state"],
    async collect() {
      const rows = await current().sql<{ state: string; n: number }[]>`
        select coalesce(state, 'unknown') as state, count(*)::int as n from pg_stat_activity
        where application_name = ${applicationName} and pid <> pg_backend_pid()
        group by 1`;
      this.reset();
      for (const state of ["active", "idle", "idle in transaction"]) this.set({ state }, 0);
      for (const row of rows) this.set({ state: row.state }, row.n);
    },
  });
}

/** The exposition text and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  if (!prom) return { contentType: "text/plain; version=0.0.4; charset=utf-8", body: "" };
  return { contentType: prom.register.contentType, body: await prom.register.metrics() };
}

/**
 * Whether a scrape may read the metrics: with METRICS_TOKEN set, only `Authorization: Bearer
 * <METRICS_TOKEN>` (compared in constant time); without it, only a client on this machine
 * (`client`: its address, loopback — 127.0.0.0/8 or ::1). Never anyone on the network.
 */
export function metricsAllowed(
  config: { METRICS_TOKEN?: string },
  authorization: string | null | undefined,
  client: string | null | undefined,
): boolean {
  if (!config.METRICS_TOKEN) return isLoopback(client);
  const given = Buffer.from(authorization ?? "");
  const wanted = Buffer.from(`Bearer ${config.METRICS_TOKEN}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Why a scrape is refused, or null when it may read: the web's and the worker's one answer. */
export function metricsRefusal(
  config: { METRICS_TOKEN?: string },
  authorization: string | null | undefined,
  client: string | null | undefined,
): { status: 401 | 403; code: "unauthorized" | "forbidden"; message: string } | null {
  if (metricsAllowed(config, authorization, client)) return null;
  return config.METRICS_TOKEN
    ? {
        status: 401,
        code: "unauthorized",
        message: "Metrics need Authorization: Bearer <METRICS_TOKEN>",
      }
    : {
        status: 403,
        code: "forbidden",
        message: "Metrics answer only on this machine, or set METRICS_TOKEN",
      };
}

/** Whether `address` is this machine's (IPv4 127/8, IPv6 ::1, or IPv4-mapped 127/8). */
export function isLoopback(address: string | null | undefined): boolean {
  const bare = (address ?? "").replace(/^\[|\]$/g, "").replace(/^::ffff:/i, "");
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || /^(0{0,4}:){2,7}0{0,3}1$/.test(bare);
}
