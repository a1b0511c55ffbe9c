import type { MessageInput } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import {
  fetchRemoteMedia,
  isRemoteMedia,
  type RemoteKind,
  remoteMediaInput,
} from "../objects/fetch-remote-media";
import { type MediaInput, prepareMediaInput } from "../objects/prepare-media";
import { speechSetup } from "../voice/speech-engine";
import { synthesizeSpeech } from "../voice/synthesize-speech";

/**
 * A parsed message whose media fields have been read and checked (no database yet), so a bad
 * data URL is refused before consent and limits are looked at. `speech` (a `tts` voice note) and
 * remote image and video URLs wait for `materializeMessage`.
 */
export interface PreparedMessage {
  input: MessageInput;
  media?: MediaInput;
  /** A video's thumbnail image. */
  thumbnail?: MediaInput;
  speech?: { text: string; voice?: string };
  /** Voice: the duration and transcript the message will carry. */
  audioDuration?: string | null;
  transcript?: string | null;
}

export function prepareMessage(deps: CoreDeps, input: MessageInput): PreparedMessage {
  const visual = (kind: RemoteKind, field: string, value: string) =>
    remoteMediaInput(deps.config, kind, field, value) ?? prepareMediaInput(kind, field, value);
  switch (input.type) {
    case "voice":
      if (input.tts) {
        if (!speechSetup(deps.config).engine)
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
      return { input, media: visual("image", "imageData", required(input.imageData)) };
    case "video":
      return {
        input,
        media: visual("video", "videoData", required(input.videoData)),
        ...(input.thumbnailData && {
          thumbnail: visual("image", "thumbnailData", input.thumbnailData),
        }),
      };
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

/**
 * The send sequence's materialize step for an agent's message, run once the send is charged: a
 * `tts` voice note's speech is synthesized, and image and video URLs (and a video's thumbnail)
 * are fetched into the object store, so the person's browser never loads them from the agent's
 * server. Null when the message is ready as it is.
 */
export function materializeMessage(
  deps: CoreDeps,
  prepared: PreparedMessage,
): (() => Promise<PreparedMessage>) | null {
  const { speech, media, thumbnail } = prepared;
  if (!speech && !isRemoteMedia(media) && !isRemoteMedia(thumbnail)) return null;
  const fetched = (input: MediaInput | undefined) =>
    isRemoteMedia(input) ? fetchRemoteMedia(deps.config, input) : input;
  return async () => {
    const [ready, readyThumbnail] = await Promise.all([fetched(media), fetched(thumbnail)]);
    const result = { ...prepared, media: ready, thumbnail: readyThumbnail };
    if (!speech) return result;
    const audio = await synthesizeSpeech(deps.config, speech.text, speech.voice);
    return {
      ...result,
      speech: undefined,
      media: {
        kind: "audio",
        field: "tts",
        source: { type: "bytes", bytes: audio.bytes, mimeType: audio.mimeType },
      },
      audioDuration: audio.duration,
    };
  };
}

/** The contract's per-type rules guarantee the field; this only narrows the type. */
function required(value: string | undefined): string {
  if (value === undefined) throw new Error("a per-type required field is missing after parsing");
  return value;
}
