import type { Health, Readiness } from "@switchboard/contract";
import { describeError, migrationStatus } from "@switchboard/db";
import { sql } from "drizzle-orm";
import type { CoreDeps } from "./deps";
import { log } from "./log";
import { rootCause } from "./root-cause";
import { isDraining } from "./shutdown";
import { speechSetup } from "./voice/speech-engine";
import { transcriptionSetup } from "./voice/speech-to-text";

/**
 * `GET /healthz`: ok when the database answers; how this process serves `tts` voice sends and
 * transcribes people's voice notes (its engines are looked up once, at start).
 */
export async function checkHealth(deps: CoreDeps): Promise<Health> {
  const { engine, encoding } = speechSetup(deps.config);
  const details = {
    speech: { engine: engine?.source ?? null, audio: encoding.format },
    transcription: { engine: transcriptionSetup(deps.config).engine?.source ?? null },
  };
  try {
    await deps.db.execute(sql`select 1`);
    return { status: "ok", details };
  } catch {
    return { status: "unavailable", details };
  }
}

/**
 * `GET /readyz`: ready for traffic when the database answers and has applied every migration
 * this code was built with (a new version started before `npm run migrate` is not ready), and the
 * process is not shutting down (shutdown.ts).
 */
export async function checkReadiness(deps: CoreDeps): Promise<Readiness> {
  const draining = isDraining();
  try {
    const migrations = await migrationStatus(deps.sql);
    const current = migrations.applied >= migrations.expected;
    return {
      status: current && !draining ? "ready" : "not_ready",
      checks: { database: "ok", migrations, draining },
    };
  } catch (error) {
    log.warn({ err: describeError(error) }, "readiness: database unreachable");
    return {
      status: "not_ready",
      checks: { database: "unreachable", migrations: null, draining },
    };
  }
}

/**
 * Postgres answers that waiting will not change: the database does not exist (dropped or
 * renamed), or this process's role may no longer connect.
 */
const GONE_FOR_GOOD = new Set(["3D000", "28000", "28P01"]);

/**
 * Probes the database every `intervalMs`; once it has answered `attempts` times in a row that
 * it is gone for good (GONE_FOR_GOOD), calls `onGone` once with why, so the process stops with
 * a clear line instead of reconnecting forever. An unreachable server (a restart, a failover)
 * is not gone: the process keeps waiting for it. Answers a function that stops the watch.
 */
export function watchDatabase(
  deps: Pick<CoreDeps, "sql">,
  onGone: (reason: string) => void,
  { intervalMs = 10_000, attempts = 3 } = {},
): () => void {
  let failures = 0;
  const probe = async () => {
    try {
      await deps.sql`select 1`;
      failures = 0;
    } catch (error) {
      const root = rootCause(error);
      const code = (root as { code?: unknown }).code;
      failures = typeof code === "string" && GONE_FOR_GOOD.has(code) ? failures + 1 : 0;
      if (failures === attempts) {
        clearInterval(timer);
        onGone(`${code}: ${(root as Error).message}`);
      }
    }
  };
  const timer = setInterval(() => void probe(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
