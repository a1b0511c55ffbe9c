import { spawn } from "node:child_process";
import { CoreError } from "../errors";
import { sniffAudio } from "../objects/sniff-media";

const TTS_TIMEOUT_MS = 15_000;
const MAX_SPEECH_BYTES = 10 * 1024 * 1024;

/**
 * Speech for a `tts` voice send. TTS_COMMAND is an espeak-ng compatible command (program and
 * fixed arguments, split on blanks): it is run without a shell as `<command> [-v VOICE] --stdout
 * --stdin`, gets the text on stdin and must write audio (WAV) to stdout within 15 s. Not
 * configured → `503 tts_unavailable`; anything else going wrong → `502 tts_failed`.
 */
export function synthesizeSpeech(
  command: string | undefined,
  text: string,
  voice?: string,
): Promise<Buffer> {
  const [program, ...baseArgs] = command?.trim().split(/\s+/) ?? [];
  if (!program)
    return Promise.reject(new CoreError("tts_unavailable", "Speech synthesis is not configured"));
  const args = [...baseArgs, ...(voice ? ["-v", voice] : []), "--stdout", "--stdin"];
  return new Promise((resolve, reject) => {
    const failed = (why: string) =>
      reject(new CoreError("tts_failed", `Speech synthesis failed: ${why}`));
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      failed(`no answer within ${TTS_TIMEOUT_MS / 1000} s`);
    }, TTS_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_SPEECH_BYTES) child.kill("SIGKILL");
      else chunks.push(chunk);
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      failed(error.message.split("\n")[0] ?? "could not start");
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const audio = Buffer.concat(chunks);
      if (code !== 0) failed(`the command exited with ${code ?? "a signal"}`);
      else if (size > MAX_SPEECH_BYTES) failed("the audio is too large");
      else if (!sniffAudio(audio)) failed("the command wrote no audio");
      else resolve(audio);
    });
    child.stdin.on("error", () => {}); // a command that exits early closes its stdin
    child.stdin.end(text);
  });
}

/** Duration of PCM WAV audio (from its byte rate and length), as AgentMessage carries it. */
export function wavSeconds(wav: Buffer): string | null {
  if (wav.length < 44 || wav.subarray(0, 4).toString("latin1") !== "RIFF") return null;
  const byteRate = wav.readUInt32LE(28);
  return byteRate > 0 ? ((wav.length - 44) / byteRate).toFixed(1) : null;
}
