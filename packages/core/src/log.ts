import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type DestinationStream } from "pino";

/**
 * The service's one logger (pino). JSON lines, one object each, unless the output is a terminal
 * or LOG_FORMAT=pretty (LOG_FORMAT=json forces JSON); LOG_LEVEL sets the level (default info).
 * What is logged is ids, codes, counts and durations: never a token, key, secret, message text
 * or query string (tests assert this). Errors go through `describeError`, which drops query
 * parameters and values.
 *
 * Everything logged while handling one request (or job, or frame) carries that unit's context,
 * such as its request id, without passing a logger around: see `withLogContext`.
 */

const context = new AsyncLocalStorage<Record<string, unknown>>();

/**
 * pino-pretty, loaded only when lines are to be pretty (a terminal, or LOG_FORMAT=pretty): JSON
 * output, a service's or a CLI call's, never pays for importing it (issue 41).
 */
const pretty =
  // biome-ignore lint/style/noProcessEnv: read once at start, before any config is loaded.
  (process.env.LOG_FORMAT ?? (process.stdout.isTTY ? "pretty" : "json")) === "pretty"
    ? (await import("pino-pretty")).default
    : undefined;

/** Where lines go; tests swap it to read what would have been written. */
let sink: DestinationStream = defaultSink();

function defaultSink(): DestinationStream {
  return pretty
    ? pretty({
        sync: true,
        colorize: process.stdout.isTTY,
        translateTime: "HH:MM:ss.l",
        ignore: "pid,hostname",
      })
    : // Lines are gathered up to 4 KB and written together, at least every 100 ms: one write
      // per request was a sixth of a `GET /me`'s CPU in the web process (issue 41). Whatever is
      // still gathered is written synchronously as the process exits.
      pino.destination({ fd: 1, sync: false, minLength: 4096, periodicFlush: 100 });
}

/**
 * The level from LOG_LEVEL; a value pino does not know starts at the default instead of
 * throwing here, so the config check (config.ts) reports it with every other bad variable.
 */
function startLevel(): string {
  // biome-ignore lint/style/noProcessEnv: read once at start, before any config is loaded.
  const given = process.env.LOG_LEVEL;
  if (given && (given === "silent" || given in pino.levels.values)) return given;
  // Test runs log warnings and worse unless asked (captureLogs reads everything).
  // biome-ignore lint/style/noProcessEnv: read once at start, before any config is loaded.
  return process.env.VITEST ? "warn" : "info";
}

export const log = pino(
  {
    level: startLevel(),
    base: { service: "switchboard" },
    mixin: () => context.getStore() ?? {},
    // Belt and braces: fields that must never carry a secret, should one be logged by mistake.
    redact: {
      paths: ["token", "key", "secret", "password", "authorization", "*.token", "*.authorization"],
      censor: "[redacted]",
    },
  },
  { write: (line: string) => sink.write(line) },
);

/**
 * The API's one line per request, the line `log.info(fields, "request")` writes (same fields,
 * same order), built with one `JSON.stringify` instead of pino's per-line serialising and
 * redaction: it was a tenth of a `GET /me`'s CPU in the web process (issue 41). Its fields are
 * ids, status, method and time by type, never anything secret, so there is nothing to redact.
 */
export function logRequest(fields: {
  route: string;
  method: string;
  agentId?: string;
  userId?: string;
  status: number;
  ms: number;
}): void {
  if (!log.isLevelEnabled("info")) return;
  const rest = JSON.stringify({ ...context.getStore(), ...fields, msg: "request" });
  sink.write(`{"level":30,"time":${Date.now()},"service":"switchboard",${rest.slice(1)}\n`);
}

/** Runs `work` with `fields` on every line logged inside it (across awaits). */
export function withLogContext<T>(fields: Record<string, unknown>, work: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, work);
}

/** Test hook: send lines to `lines` until the returned function restores the default sink. */
export function captureLogs(lines: string[]): () => void {
  const previous = { sink, level: log.level };
  sink = { write: (line: string) => lines.push(line) } as DestinationStream;
  log.level = "info";
  return () => {
    sink = previous.sink;
    log.level = previous.level;
  };
}
