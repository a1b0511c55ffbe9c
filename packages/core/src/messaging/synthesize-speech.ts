import { execFile } from "node:child_process";
import { CoreError } from "../errors";
import { sniffAudio } from "../objects/media-input";

/**
 * Speech synthesis for `tts` voice sends: runs TTS_COMMAND (espeak-ng compatible: `-v voice
 * --stdout text` writes a WAV) with a time limit. Not configured → 503; failed → 502.
 */
export function synthesizeSpeech(
  command: string | undefined,
  text: string,
  voice?: string,
): Promise<Buffer> {
  if (!command)
    return Promise.reject(new CoreError("tts_unavailable", "Speech synthesis is not configured"));
  const args = [...(voice ? ["-v", voice] : []), "--stdout", text];
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { encoding: "buffer", timeout: 15_000, maxBuffer: 20 * 1024 * 1024 },
      (error, stdout) => {
        if (error || stdout.length === 0 || !sniffAudio(stdout))
          reject(
            new CoreError(
              "tts_failed",
              `Speech synthesis failed${error ? `: ${error.message.split("\n")[0]}` : ""}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}
