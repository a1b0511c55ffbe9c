import { spawn } from "node:child_process";
import type { Config } from "../config";
import { CoreError } from "../errors";
import { sniffAudio } from "../objects/sniff-media";
import { speechSetup } from "./speech-engine";

const MAX_SPEECH_BYTES = 10 * 1024 * 1024;

/** A `tts` voice note's audio, ready to store. */
export interface Speech {
  bytes: Buffer;
  mimeType: string;
  /** Seconds as AgentMessage carries them ("1.5"); null when the engine's audio is not WAV. */
  duration: string | null;
}

/**
 * Speech for a `tts` voice send (run only once the send is charged). The engine is an espeak-ng
 * compatible command run without a shell as `<program> [args] [-v VOICE] --stdout --stdin`: the
 * text on stdin, audio (WAV) on stdout. With ffmpeg on PATH the WAV is stored as Opus in Ogg.
 * Both together must finish within TTS_TIMEOUT_MS. No engine → `503 tts_unavailable`; anything
 * else going wrong → `502 tts_failed`.
 */
export async function synthesizeSpeech(
  config: Pick<Config, "TTS_COMMAND" | "PATH" | "TTS_TIMEOUT_MS">,
  text: string,
  voice?: string,
): Promise<Speech> {
  const { engine, encoding } = speechSetup(config);
  if (!engine) throw new CoreError("tts_unavailable", "Speech synthesis is not configured");
  const deadline = { at: Date.now() + config.TTS_TIMEOUT_MS, limitMs: config.TTS_TIMEOUT_MS };
  const failed = (why: string) => new CoreError("tts_failed", `Speech synthesis failed: ${why}`);
  const args = [...engine.args, ...(voice ? ["-v", voice] : []), "--stdout", "--stdin"];
  const audio = await runProgram(engine.program, args, text, deadline).catch((why: string) => {
    throw failed(why);
  });
  const mimeType = sniffAudio(audio);
  if (!mimeType) throw failed("the command wrote no audio");
  if (mimeType !== "audio/wav") return { bytes: audio, mimeType, duration: null };
  const wav = withWavSizes(audio);
  const duration = wavSeconds(wav);
  if (encoding.format === "wav") return { bytes: wav, mimeType, duration };
  const ffmpegArgs = ["-hide_banner", "-loglevel", "error", "-i", "pipe:0"];
  const ogg = await runProgram(
    encoding.ffmpeg,
    [...ffmpegArgs, "-c:a", "libopus", "-b:a", "32k", "-f", "ogg", "pipe:1"],
    wav,
    deadline,
  ).catch((why: string) => {
    throw failed(`encoding to Opus: ${why}`);
  });
  if (sniffAudio(ogg) !== "audio/ogg") throw failed("the Opus encoder wrote no audio");
  return { bytes: ogg, mimeType: "audio/ogg", duration };
}

/** Runs a program on `input`, answering its stdout; rejects with a short reason. */
export function runProgram(
  program: string,
  args: string[],
  input: string | Buffer,
  deadline: { at: number; limitMs: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    let size = 0;
    let why: string | null = null;
    const stop = (reason: string) => {
      why ??= reason;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => stop(`no answer within ${deadline.limitMs / 1000} s`),
      Math.max(0, deadline.at - Date.now()),
    );
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SPEECH_BYTES) stop("the audio is too large");
      else chunks.push(chunk);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(why ?? error.message.split("\n")[0] ?? "could not start");
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (why) reject(why);
      else if (code !== 0) reject(`the command exited with ${code ?? "a signal"}`);
      else resolve(Buffer.concat(chunks));
    });
    child.stdin.on("error", () => {}); // a command that exits early closes its stdin
    child.stdin.end(input);
  });
}

/** The WAV chunks: `fmt ` (byte rate) and `data` (where the samples start). */
function wavLayout(wav: Buffer): { byteRate: number; dataStart: number } | null {
  let byteRate = 0;
  for (let at = 12; at + 8 <= wav.length; ) {
    const id = wav.toString("latin1", at, at + 4);
    const size = wav.readUInt32LE(at + 4);
    if (id === "fmt " && at + 20 <= wav.length) byteRate = wav.readUInt32LE(at + 16);
    if (id === "data") return byteRate > 0 ? { byteRate, dataStart: at + 8 } : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/**
 * The WAV with its RIFF and data sizes set from its real length: espeak-ng streaming to stdout
 * writes placeholders, which some players refuse.
 */
function withWavSizes(wav: Buffer): Buffer {
  const layout = wavLayout(wav);
  if (!layout) return wav;
  const fixed = Buffer.from(wav);
  fixed.writeUInt32LE(wav.length - 8, 4);
  fixed.writeUInt32LE(wav.length - layout.dataStart, layout.dataStart - 4);
  return fixed;
}

/** Duration of PCM WAV audio (from its byte rate and sample bytes), as AgentMessage carries it. */
export function wavSeconds(wav: Buffer): string | null {
  const layout = wavLayout(wav);
  return layout ? ((wav.length - layout.dataStart) / layout.byteRate).toFixed(1) : null;
}
