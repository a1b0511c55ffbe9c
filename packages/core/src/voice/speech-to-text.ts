import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { MAX_CONTENT_CHARS } from "@switchboard/contract";
import type { Config } from "../config";
import { findProgram } from "./speech-engine";
import { runProgram } from "./synthesize-speech";

type SttConfig = Pick<Config, "STT_COMMAND" | "PATH" | "STT_TIMEOUT_MS">;

/** What this process transcribes people's voice notes with (null: it does not). */
export interface TranscriptionSetup {
  engine: { source: "STT_COMMAND" | "pocketsphinx"; program: string; args: string[] } | null;
}

/**
 * `STT_COMMAND` when set, else Debian's `pocketsphinx_continuous` (package `pocketsphinx`, with
 * `pocketsphinx-en-us`) when it is on PATH. Either is given the note as a 16 kHz mono WAV file
 * (its path the last argument) and prints the text on stdout, so ffmpeg is needed to decode the
 * note: without it there is no engine.
 */
export function transcriptionSetup(
  config: Pick<Config, "STT_COMMAND" | "PATH">,
): TranscriptionSetup {
  if (!findProgram("ffmpeg", config.PATH)) return { engine: null };
  const [program, ...args] = config.STT_COMMAND?.trim().split(/\s+/) ?? [];
  if (program) return { engine: { source: "STT_COMMAND", program, args } };
  const sphinx = findProgram("pocketsphinx_continuous", config.PATH);
  return {
    engine: sphinx
      ? { source: "pocketsphinx", program: sphinx, args: ["-logfn", "/dev/null", "-infile"] }
      : null,
  };
}

/**
 * The text spoken in `audio` (any format ffmpeg reads), or null when the engine heard nothing.
 * Decoding and recognition together must finish within STT_TIMEOUT_MS. Rejects (with a short
 * reason) when no engine is configured or either program fails.
 */
export async function transcribeAudio(config: SttConfig, audio: Buffer): Promise<string | null> {
  const { engine } = transcriptionSetup(config);
  const ffmpeg = findProgram("ffmpeg", config.PATH);
  if (!engine || !ffmpeg) throw new Error("speech-to-text is not configured");
  const deadline = { at: Date.now() + config.STT_TIMEOUT_MS, limitMs: config.STT_TIMEOUT_MS };
  const dir = await mkdtemp(path.join(tmpdir(), "stt-"));
  try {
    const wav = path.join(dir, "note.wav");
    const decode = [
      "-hide_banner",
      "-loglevel",
      "error",
      "-i",
      "pipe:0",
      "-ar",
      "16000",
      "-ac",
      "1",
    ];
    await runProgram(ffmpeg, [...decode, "-c:a", "pcm_s16le", "-f", "wav", wav], audio, deadline);
    const out = await runProgram(engine.program, [...engine.args, wav], "", deadline);
    const text = storable(out.toString("utf8"));
    return text.length > 0 ? text.slice(0, MAX_CONTENT_CHARS) : null;
  } catch (why) {
    throw new Error(`transcription failed: ${typeof why === "string" ? why : String(why)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One line of text without control characters or lone surrogates (an engine's output is not trusted to be either). */
function storable(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "")
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
