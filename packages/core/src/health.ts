import type { Health, Readiness } from "@switchboard/contract";
import { describeError, migrationStatus } from "@switchboard/db";
import { sql } from "drizzle-orm";
import type { CoreDeps } from "./deps";
import { log } from "./log";
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
