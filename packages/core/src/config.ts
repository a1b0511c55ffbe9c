import { z } from "zod";

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
  /** Signs console sessions. When unset, the service keeps one in the database. */
  AUTH_SECRET: z.string().min(32).optional(),

  LIMIT_REQUESTS_PER_MIN: positive(300),
  LIMIT_MESSAGES_PER_MIN: positive(60),
  LIMIT_PER_RECIPIENT_PER_MIN: positive(20),
  LIMIT_DAILY_MESSAGES: positive(2000),
  LIMIT_DAILY_PROPOSALS: positive(300),
  LIMIT_DAILY_REFUSED: positive(100),
  LIMIT_PENDING_PROPOSALS: positive(10),
  LIMIT_DEV_MESSAGES_PER_MIN: positive(30),
  /** Console sign-in attempts per email per 15 minutes (password guessing). */
  LIMIT_SIGNIN_ATTEMPTS: positive(10),
  LONGPOLL_MAX_WAIT_S: count(25),
  LONGPOLL_MAX_PARKED: positive(5),

  WEBHOOK_RETRY_SCHEDULE_S: seconds("60,300,900,3600,10800,21600,43200"),
  WEBHOOK_TIMEOUT_MS: positive(10_000),
  WEBHOOK_DISABLE_AFTER: positive(25),
  WEBHOOK_ALLOW_INSECURE_HOSTS: list,

  STREAM_MAX_CONNECTIONS: positive(3),
  STREAM_FRAMES_PER_MIN: positive(120),
  STREAM_DELTAS_PER_SEC: positive(20),
  STREAM_MAX_OPEN_REPLIES: positive(3),
  STREAM_MAX_REPLY_CHARS: positive(10_000),
  STREAM_REPLY_IDLE_S: positive(60),
  /** How often the server pings each stream connection, renews its lease and re-checks its token. */
  STREAM_HEARTBEAT_S: positive(30),
  /** A job locked this long belongs to a worker that died (ours finish within seconds). */
  JOB_LOCK_STALE_S: positive(300),

  TTS_COMMAND: z.string().optional(),
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
