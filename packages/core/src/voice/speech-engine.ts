import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import type { Config } from "../config";

/** The program a `tts` voice send runs, and the encoding its audio is stored in. */
export interface SpeechSetup {
  /** Null: no engine, so `tts` sends answer `503 tts_unavailable`. */
  engine: { source: "TTS_COMMAND" | "espeak-ng"; program: string; args: string[] } | null;
  /** Opus in Ogg when ffmpeg is on PATH (smaller, what messengers use); else the engine's WAV. */
  encoding: { format: "ogg/opus"; ffmpeg: string } | { format: "wav" };
}

/**
 * What this process synthesizes speech with: `TTS_COMMAND` when set, else `espeak-ng` when it
 * is on PATH. PATH is searched once per process (the first call, at start: the health check
 * makes it), not per send.
 */
export function speechSetup(config: Pick<Config, "TTS_COMMAND" | "PATH">): SpeechSetup {
  const [program, ...args] = config.TTS_COMMAND?.trim().split(/\s+/) ?? [];
  const espeak = program ? null : findProgram("espeak-ng", config.PATH);
  const ffmpeg = findProgram("ffmpeg", config.PATH);
  return {
    engine: program
      ? { source: "TTS_COMMAND", program, args }
      : espeak
        ? { source: "espeak-ng", program: espeak, args: [] }
        : null,
    encoding: ffmpeg ? { format: "ogg/opus", ffmpeg } : { format: "wav" },
  };
}

const found = new Map<string, string | null>();

/** The first executable file `name` in a PATH list, remembered for the process. */
export function findProgram(name: string, searchPath: string): string | null {
  const key = `${searchPath}\0${name}`;
  if (!found.has(key)) {
    const hit = searchPath
      .split(path.delimiter)
      .filter(Boolean)
      .map((dir) => path.join(dir, name))
      .find(isExecutable);
    found.set(key, hit ?? null);
  }
  return found.get(key) ?? null;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
