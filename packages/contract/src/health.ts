import { z } from "zod";

export const Health = z.object({
  status: z.string(),
  /** How this process serves `tts` voice sends: its engine and the audio it stores. */
  details: z
    .object({
      speech: z.object({
        engine: z.enum(["TTS_COMMAND", "espeak-ng"]).nullable(),
        audio: z.enum(["ogg/opus", "wav"]),
      }),
      /** What people's voice notes are transcribed with (null: they get no transcript). */
      transcription: z.object({ engine: z.enum(["STT_COMMAND", "pocketsphinx"]).nullable() }),
    })
    .optional(),
});
export type Health = z.infer<typeof Health>;

/**
 * `GET /api/readyz` (web) and `GET /readyz` (worker): whether this process should get traffic.
 * Ready means the database answers and has every migration this code was built with.
 */
export const Readiness = z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z.object({
    database: z.enum(["ok", "unreachable"]),
    migrations: z.object({ applied: z.number().int(), expected: z.number().int() }).nullable(),
    /** The process received SIGTERM and is finishing its work: send it nothing new. */
    draining: z.boolean(),
  }),
});
export type Readiness = z.infer<typeof Readiness>;
