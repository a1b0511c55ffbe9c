import type { MessageInput } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { type MediaInput, prepareMediaInput } from "../objects/prepare-media";
import { synthesizeSpeech, wavSeconds } from "./synthesize-speech";

/**
 * A parsed message whose media field has been read and checked (no database yet), so a bad
 * data URL is refused before consent and limits are looked at. `speech` is set for a `tts`
 * voice note until `speakMessage` has synthesized it.
 */
export interface PreparedMessage {
  input: MessageInput;
  media?: MediaInput;
  speech?: { text: string; voice?: string };
  /** Voice: the duration and transcript the message will carry. */
  audioDuration?: string | null;
  transcript?: string | null;
}

export function prepareMessage(deps: CoreDeps, input: MessageInput): PreparedMessage {
  switch (input.type) {
    case "voice":
      if (input.tts) {
        if (!deps.config.TTS_COMMAND)
          throw new CoreError(
            "tts_unavailable",
            "Speech synthesis is not configured on this service",
          );
        return { input, speech: input.tts, transcript: input.tts.text };
      }
      return {
        input,
        media: prepareMediaInput("audio", "audioData", required(input.audioData)),
        audioDuration: input.audioDuration ?? null,
        transcript: input.transcript ?? null,
      };
    case "image":
    case "sticker":
      return { input, media: prepareMediaInput("image", "imageData", required(input.imageData)) };
    case "video":
      return { input, media: prepareMediaInput("video", "videoData", required(input.videoData)) };
    case "document":
      return {
        input,
        media: prepareMediaInput(
          "document",
          "documentData",
          required(input.documentData),
          input.documentMimeType,
        ),
      };
    default:
      return { input };
  }
}

/** Synthesizes a `tts` voice note's audio (after consent: refused sends cost no synthesis). */
export async function speakMessage(
  deps: CoreDeps,
  prepared: PreparedMessage,
): Promise<PreparedMessage> {
  if (!prepared.speech) return prepared;
  const wav = await synthesizeSpeech(
    deps.config.TTS_COMMAND,
    prepared.speech.text,
    prepared.speech.voice,
  );
  return {
    ...prepared,
    speech: undefined,
    media: {
      kind: "audio",
      field: "tts",
      source: { type: "bytes", bytes: wav, mimeType: "audio/wav" },
    },
    audioDuration: wavSeconds(wav),
  };
}

/** The contract's per-type rules guarantee the field; this only narrows the type. */
function required(value: string | undefined): string {
  if (value === undefined) throw new Error("a per-type required field is missing after parsing");
  return value;
}
