import { MAX_MEDIA_BYTES } from "@switchboard/contract";
import { CoreError } from "../errors";
import { objectIdFromPath } from "./object-store";
import { documentType, sniffAudio, sniffImage, sniffVideo } from "./sniff-media";

export type MediaKind = "audio" | "image" | "video" | "document";

/** Where a send's media comes from, once its field has been read. */
export type MediaSource =
  | { type: "bytes"; bytes: Buffer; mimeType: string }
  | { type: "object"; id: string }
  | { type: "url"; url: string };

export interface MediaInput {
  kind: MediaKind;
  /** The request field it came from, for error messages. */
  field: string;
  source: MediaSource;
}

const kindNames: Record<MediaKind, string> = {
  audio: "mp3, m4a/aac, webm, ogg/opus or wav audio",
  image: "a png, jpeg, gif or webp image",
  video: "an mp4, mov, webm or ogg video",
  document: "a document",
};

/**
 * The refusal for a bad media field: voice audio answers `invalid_audio` (the spec's code),
 * every other field a `validation_error` naming it.
 */
export function invalidMedia(kind: MediaKind, field: string, message: string): CoreError {
  return kind === "audio"
    ? new CoreError("invalid_audio", `${field}: ${message}`)
    : new CoreError("validation_error", `${field}: ${message}`, {
        issues: [{ path: field, message }],
      });
}

const DATA_URL =
  /^data:([a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+)?((?:;[a-z0-9_.-]+=[^;,]*)*);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A base64 data URL's declared type and bytes; null when the value is not one. */
export function decodeDataUrl(value: string): { declared: string | null; bytes: Buffer } | null {
  const head = DATA_URL.exec(value);
  if (!head) return null;
  const payload = value.slice(head[0].length).replace(/\s+/g, "");
  if (payload.length % 4 === 1 || !BASE64.test(payload)) return null;
  return { declared: head[1]?.toLowerCase() ?? null, bytes: Buffer.from(payload, "base64") };
}

function httpsUrl(value: string): string | null {
  if (value.length > 2000) return null;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && !url.username && !url.password ? value : null;
  } catch {
    return null;
  }
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/**
 * Reads one media field of a send, before anything is stored: a base64 data URL is decoded,
 * size-checked and recognised by its content (audio, image and video by magic numbers; a
 * document gets a passive type, never an active one: `documentType`); an `/objects/...` path is kept for the store to check
 * against the sender; an https URL is kept as given for images, videos and documents. Voice
 * audio accepts only data URLs and `/objects/...` paths.
 */
export function prepareMediaInput(
  kind: MediaKind,
  field: string,
  value: string,
  declaredMimeType?: string,
): MediaInput {
  const invalid = (message: string) => invalidMedia(kind, field, message);
  if (value.startsWith("/objects/")) {
    const id = objectIdFromPath(value);
    if (!id) throw invalid("names no stored object");
    return { kind, field, source: { type: "object", id } };
  }
  if (kind !== "audio" && /^https:/i.test(value)) {
    const url = httpsUrl(value);
    if (!url)
      throw invalid("must be a valid https URL without credentials, at most 2000 characters");
    return { kind, field, source: { type: "url", url } };
  }
  const decoded = decodeDataUrl(value);
  if (!decoded)
    throw invalid(
      kind === "audio"
        ? "must be a base64 audio data URL or an /objects/... path"
        : "must be a base64 data URL, an https URL or an /objects/... path",
    );
  if (decoded.bytes.length === 0) throw invalid("the data URL is empty");
  if (decoded.bytes.length > MAX_MEDIA_BYTES)
    throw invalid(`is larger than ${MAX_MEDIA_BYTES / 1024 / 1024} MB`);
  const mimeType =
    kind === "audio"
      ? sniffAudio(decoded.bytes)
      : kind === "image"
        ? sniffImage(decoded.bytes)
        : kind === "video"
          ? sniffVideo(decoded.bytes)
          : documentType(
              decoded.bytes,
              [declaredMimeType?.toLowerCase(), decoded.declared].find((m) => m && MIME.test(m)),
            );
  if (!mimeType) throw invalid(`is not ${kindNames[kind]}`);
  return { kind, field, source: { type: "bytes", bytes: decoded.bytes, mimeType } };
}

/** Whether a stored object's type suits the field it is used in. */
export function mimeFits(kind: MediaKind, mimeType: string): boolean {
  return kind === "document" || mimeType.startsWith(`${kind}/`);
}
