import type { Executor } from "@switchboard/db";
import { CoreError } from "../errors";
import { type ObjectStore, objectIdFromPath, objectPath } from "./object-store";

export const MAX_VOICE_BYTES = 10 * 1024 * 1024;
export const MAX_MEDIA_BYTES = 12 * 1024 * 1024;

/** Audio and image formats recognised by their first bytes, not by what the sender declared. */
export function sniffAudio(bytes: Buffer): string | null {
  const ascii = (from: number, to: number) => bytes.subarray(from, to).toString("latin1");
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return "audio/wav";
  if (ascii(0, 4) === "OggS") return "audio/ogg";
  if (bytes.readUInt32BE(0) === 0x1a45dfa3) return "audio/webm";
  if (ascii(4, 8) === "ftyp") return "audio/mp4";
  if (ascii(0, 3) === "ID3" || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0))
    return (bytes[1] ?? 0) & 0x06 ? "audio/mpeg" : "audio/aac";
  return null;
}

export function sniffImage(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
  if (
    bytes.subarray(0, 4).toString("latin1") === "RIFF" &&
    bytes.subarray(8, 12).toString("latin1") === "WEBP"
  )
    return "image/webp";
  return null;
}

function decodeDataUrl(value: string): { declared: string; bytes: Buffer } | null {
  const match = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[\w.-]+)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(
    value,
  );
  if (!match) return null;
  const bytes = Buffer.from(match[3] ?? "", "base64");
  return bytes.length > 0 ? { declared: match[1] ?? "application/octet-stream", bytes } : null;
}

export type MediaKind = "audio" | "image" | "video" | "document";

/**
 * Turns a media field of a send into a stored reference: a data URL is decoded, checked by
 * content and stored; an `/objects/...` path must name an object the sender may use; https URLs
 * are kept as given where the spec allows them (images). Answers the `/objects/...` path or URL.
 */
export async function storeMediaInput(
  db: Executor,
  store: ObjectStore,
  input: {
    kind: MediaKind;
    value: string;
    senderId: string;
    conversationMemberIds: string[];
    now: Date;
    field: string;
  },
): Promise<{ data: string; mimeType: string | null }> {
  const invalid = (message: string) =>
    input.kind === "audio"
      ? new CoreError("invalid_audio", message)
      : new CoreError("validation_error", message, { issues: [{ path: input.field, message }] });

  const objectId = objectIdFromPath(input.value);
  if (input.value.startsWith("/objects/")) {
    const object = objectId ? await store.head(db, objectId) : null;
    if (!object || object.deleted || !input.conversationMemberIds.includes(object.ownerId))
      throw invalid(`${input.field} names no object you may use`);
    if (input.kind === "audio" && !object.mimeType.startsWith("audio/"))
      throw invalid(`${input.field} is not audio`);
    return { data: objectPath(object.id), mimeType: object.mimeType };
  }
  if (
    input.kind !== "audio" &&
    /^https:\/\/[^\s]+$/.test(input.value) &&
    input.value.length <= 2000
  )
    return { data: input.value, mimeType: null };

  const decoded = decodeDataUrl(input.value);
  if (!decoded)
    throw invalid(
      input.kind === "audio"
        ? "audioData must be an audio data URL (base64) or an /objects/... path"
        : `${input.field} must be a base64 data URL${input.kind === "image" ? ", an https URL" : ""} or an /objects/... path`,
    );
  const max = input.kind === "audio" ? MAX_VOICE_BYTES : MAX_MEDIA_BYTES;
  if (decoded.bytes.length > max)
    throw invalid(`${input.field} is larger than ${max / 1024 / 1024} MB`);
  const mimeType =
    input.kind === "audio"
      ? sniffAudio(decoded.bytes)
      : input.kind === "image"
        ? sniffImage(decoded.bytes)
        : decoded.declared;
  if (!mimeType)
    throw invalid(
      input.kind === "audio"
        ? "audioData is not mp3, m4a/aac, webm, ogg/opus or wav audio"
        : `${input.field} is not a png, jpeg, gif or webp image`,
    );
  const stored = await store.put(db, {
    ownerId: input.senderId,
    mimeType,
    bytes: decoded.bytes,
    now: input.now,
  });
  return { data: objectPath(stored.id), mimeType };
}
