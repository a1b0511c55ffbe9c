import { z } from "zod";
import { parseProxyRange } from "./net/trusted-proxies";

const seconds = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const list = value.split(",").map((part) => Number(part.trim()));
      if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 0)) {
        ctx.addIssue({ code: "custom", message: "must be a comma list of whole seconds" });
        return z.NEVER;
      }
      return list;
    });

const count = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const positive = (fallback: number) => z.coerce.number().int().min(1).default(fallback);
const list = z
  .string()
  .default("")
  .transform((value) =>
    value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean),
  );

/**
 * Every setting of the service. Each spec limit defaults to its spec value and can be changed
 * through the environment (operators and tests do).
 */
export const ConfigSchema = z.object({
  DATABASE_URL: z.string().optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  WS_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /**
   * Signs console sessions. Required by the web process (start:web refuses to start without it;
   * `npm start` keeps it in the data directory's keys file); never generated, never in the
   * database.
   */
  AUTH_SECRET: z.string().min(32).optional(),
  /** When set, `/metrics` (web and worker) answers only `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(1).optional(),
  /**
   * Seals webhook signing secrets at rest (AES-256-GCM). Required by web and worker, like
   * AUTH_SECRET; the CLI takes it from the environment, else the data directory's keys file.
   */
  SECRETS_KEY: z.string().min(32).optional(),
  /** Read by the logger when it loads (core/log.ts); checked here so a typo stops the start. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),

  LIMIT_REQUESTS_PER_MIN: positive(300),
  LIMIT_MESSAGES_PER_MIN: positive(60),
  LIMIT_PER_RECIPIENT_PER_MIN: positive(20),
  LIMIT_DAILY_MESSAGES: positive(2000),
  LIMIT_DAILY_PROPOSALS: positive(300),
  LIMIT_DAILY_REFUSED: positive(100),
  LIMIT_PENDING_PROPOSALS: positive(10),
  LIMIT_DEV_MESSAGES_PER_MIN: positive(30),
  /** Console sign-in attempts per email per 15 minutes (password guessing); sign-ups too. */
  LIMIT_SIGNIN_ATTEMPTS: positive(10),
  /** Media bytes one agent may keep stored (its uploads, voice notes, synthesized speech). */
  LIMIT_MEDIA_BYTES_PER_AGENT: positive(1024 ** 3),
  /** Media bytes an owner account and all its agents may keep stored together. */
  LIMIT_MEDIA_BYTES_PER_OWNER: positive(5 * 1024 ** 3),
  /** Console sign-in attempts per client network per 15 minutes (trying many accounts). */
  LIMIT_SIGNIN_ATTEMPTS_PER_IP: positive(100),
  /** Console sign-ups per client network per hour. */
  LIMIT_SIGNUPS_PER_IP: positive(20),
  /**
   * Addresses and CIDR ranges of the proxies in front of this process (web or worker), comma
   * separated (`10.0.0.0/8, ::1`). Forwarded headers (X-Forwarded-For, -Host, -Proto) are
   * believed only from a peer in this list, and the client is the first address, walking back
   * through X-Forwarded-For, that is not in it. Empty (the default): clients connect directly and
   * every forwarded header is ignored (anyone can send one).
   */
  TRUSTED_PROXIES: list.superRefine((entries, ctx) => {
    for (const entry of entries)
      if (!parseProxyRange(entry))
        ctx.addIssue({ code: "custom", message: `"${entry}" is not an IP address or CIDR range` });
  }),
  /** Replaced by TRUSTED_PROXIES: a count of hops believed X-Forwarded-For from any peer. */
  TRUST_PROXY_HOPS: z
    .undefined({
      error: "is replaced by TRUSTED_PROXIES (the proxies' addresses or CIDR ranges)",
    })
    .optional(),
  /**
   * The console's public URL (`https://console.example.com`). Set, it is the console's origin for
   * redirects, cookies, the Origin check and HSTS; unset, the request's Host is (and a trusted
   * proxy's X-Forwarded-Host/-Proto, see TRUSTED_PROXIES).
   */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Console (tRPC) requests per person per minute, across every web process. */
  LIMIT_CONSOLE_REQUESTS_PER_MIN: positive(600),
  LONGPOLL_MAX_WAIT_S: count(25),
  LONGPOLL_MAX_PARKED: positive(5),

  WEBHOOK_RETRY_SCHEDULE_S: seconds("60,300,900,3600,10800,21600,43200"),
  WEBHOOK_TIMEOUT_MS: positive(10_000),
  WEBHOOK_DISABLE_AFTER: positive(25),
  WEBHOOK_ALLOW_INSECURE_HOSTS: list,

  /**
   * Web Push (VAPID, RFC 8292): the instance's P-256 key pair, base64url as web-push makes it.
   * Required by web and worker like AUTH_SECRET; `npm start` keeps a pair in the keys file.
   */
  VAPID_PUBLIC_KEY: z.string().min(1).optional(),
  VAPID_PRIVATE_KEY: z.string().min(1).optional(),
  /** Who push services may contact about this instance (`mailto:` or `https:`); default a mailto of PUBLIC_URL's host. */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:)/, "must start with mailto: or https:")
    .optional(),
  /** Seconds between attempts of a push a push service did not take (Retry-After wins when longer). */
  PUSH_RETRY_SCHEDULE_S: seconds("5,30,120,600,1800,3600"),
  /** One push request (DNS, connect, answer) must finish within this. */
  PUSH_TIMEOUT_MS: positive(10_000),

  /** Image and video URLs of agent sends are fetched once, at send time, within this. */
  MEDIA_FETCH_TIMEOUT_MS: positive(10_000),
  /** Development only: hosts whose media may be fetched over http and from private addresses. */
  MEDIA_ALLOW_INSECURE_HOSTS: list,

  STREAM_MAX_CONNECTIONS: positive(3),
  STREAM_FRAMES_PER_MIN: positive(120),
  STREAM_DELTAS_PER_SEC: positive(20),
  STREAM_MAX_OPEN_REPLIES: positive(3),
  STREAM_MAX_REPLY_CHARS: positive(10_000),
  STREAM_REPLY_IDLE_S: positive(60),
  /** How often the server pings each stream connection, renews its lease and re-checks its token. */
  STREAM_HEARTBEAT_S: positive(30),
  /**
   * Days events are kept at least (0: forever, the default; agents may replay from seq 0): the
   * log's partitions are a quarter of this wide and one is dropped once all of it is older.
   */
  EVENT_RETENTION_DAYS: count(0),
  /** Days finished webhook delivery records are kept (0: forever, the default). */
  DELIVERY_RETENTION_DAYS: count(0),
  /** How long a worker's SIGTERM shutdown may take (streams closed, running jobs finished). */
  SHUTDOWN_TIMEOUT_MS: positive(10_000),
  /** Unsent bytes a stream connection may hold before it stops reading events for that client. */
  STREAM_SEND_BUFFER_BYTES: positive(1024 * 1024),
  /** A job worker silent this long (no heartbeat) is dead: its job locks are released. */
  JOB_LOCK_STALE_S: positive(300),
  /**
   * Jobs one worker process runs at once: maintenance, records falling due, cards expiring,
   * voice transcriptions, and the timers that wake webhook retries.
   */
  JOB_CONCURRENCY: positive(10),
  /**
   * Agents' webhooks one worker process drains at once. A drain mostly waits for its receiver,
   * so this is higher than JOB_CONCURRENCY; one agent's deliveries still go one at a time, in
   * order (decision 0057).
   */
  WEBHOOK_CONCURRENCY: positive(50),

  /** Speech for `tts` voice sends; unset: espeak-ng when it is on PATH (see voice/). */
  TTS_COMMAND: z.string().optional(),
  /** Synthesis (and encoding to Opus) must finish within this, else `502 tts_failed`. */
  TTS_TIMEOUT_MS: positive(15_000),
  /**
   * Transcripts of people's voice notes; unset: pocketsphinx_continuous when it is on PATH (see
   * voice/speech-to-text.ts). Run as `<command> <16 kHz mono WAV file>`, text on stdout.
   */
  STT_COMMAND: z.string().optional(),
  /** One transcription (decoding and recognition) must finish within this, else it is retried. */
  STT_TIMEOUT_MS: positive(60_000),
  /** Where espeak-ng and ffmpeg are looked for: the process's own PATH unless given. */
  PATH: z.string().default(process.env.PATH ?? ""),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Parses settings from an environment; throws one error listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = ConfigSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    );
  }
  return Object.freeze(parsed.data);
}
