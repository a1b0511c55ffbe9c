import { type MediaKind, sniffAudio, sniffImage, sniffVideo } from "@switchboard/core";
import { bytesResponse, rangedResponse } from "./byte-range";

/**
 * How bytes someone else stored (an agent's media, a person's voice note) are served from our
 * origin. Whatever the sender declared and whatever was stored, nothing served here can run as
 * a page of ours: only bytes that are recognisably audio, a raster image or video are shown
 * inline, under their sniffed type; everything else, documents always, is a download. Every
 * answer carries `nosniff` and a sandboxing policy, so even a browser that rendered it would
 * give it no script, no origin and nothing to load.
 */
export const STORED_OBJECT_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox; frame-ancestors 'none'",
  "Cross-Origin-Resource-Policy": "same-origin",
};

const sniffers: Record<Exclude<MediaKind, "document">, (bytes: Buffer) => string | null> = {
  audio: sniffAudio,
  image: sniffImage, // png, jpeg, gif, webp: never SVG
  video: sniffVideo,
};

/** The type to show `bytes` inline under, from their first bytes; null when not to show inline. */
export function inlineType(kind: MediaKind, bytes: Buffer): string | null {
  return kind === "document" ? null : sniffers[kind](bytes);
}

/**
 * Declared types a download keeps: passive formats a browser never runs. Anything else (HTML,
 * SVG, XML, scripts, unknown) downloads as `application/octet-stream`.
 */
const PASSIVE_TYPE =
  /^(application\/(pdf|zip|rtf|msword|vnd\.ms-(excel|powerpoint)|vnd\.openxmlformats-officedocument\.[a-z.]+|vnd\.oasis\.opendocument\.[a-z.]+)|text\/(plain|csv)|image\/(png|jpeg|gif|webp)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+)$/;

export function downloadType(declared: string): string {
  const type = declared.split(";")[0]?.trim().toLowerCase() ?? "";
  return PASSIVE_TYPE.test(type) && !type.includes("xml") ? type : "application/octet-stream";
}

/**
 * `attachment` with the sender's name made safe: no control, format (bidi override) or path
 * characters, no leading dots; an ASCII `filename` for old clients and the full name in
 * `filename*` (RFC 6266 / 8187).
 */
export function attachmentDisposition(name: string | null | undefined, fallback: string): string {
  const clean =
    (name ?? "")
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}"\\/:*?<>|]/gu, "_")
      .replace(/^[.\s]+/, "")
      .trim()
      .slice(0, 200) || fallback;
  const ascii = clean.replace(/[^\x20-\x7e]/g, "_");
  const encoded = encodeURIComponent(clean).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

export interface ServedObject {
  bytes: Buffer;
  /** What was stored with the object; trusted only to choose a download's type. */
  mimeType: string;
  /** The field it was sent in. */
  kind: MediaKind;
  /** A name for a download (a document's own name). */
  name?: string | null;
}

/** A stored object as an answer (with Range), inline only when its bytes are media. */
export function storedObjectResponse(request: Request, object: ServedObject): Response {
  return bytesResponse(request, object.bytes, servedHeaders(object, object.bytes));
}

/** Bytes read from the store as they are sent, at most this many per read. */
const STREAM_CHUNK = 256 * 1024;

/**
 * A stored object streamed from the store (with Range): only the range asked for is read, a
 * chunk at a time as the client takes it, never the whole object into memory. Judged inline or
 * not by its first bytes, as `storedObjectResponse` judges.
 */
export async function streamedObjectResponse(
  request: Request,
  object: Omit<ServedObject, "bytes"> & {
    size: number;
    read(start: number, length: number): Promise<Buffer>;
  },
): Promise<Response> {
  const head = await object.read(0, 512);
  return rangedResponse(
    request,
    object.size,
    (start, end) => {
      let at = start;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (at > end) return controller.close();
          const chunk = await object.read(at, Math.min(STREAM_CHUNK, end - at + 1));
          if (chunk.length === 0) return controller.close();
          at += chunk.length;
          controller.enqueue(new Uint8Array(chunk));
        },
      });
    },
    servedHeaders(object, head),
  );
}

function servedHeaders(object: Omit<ServedObject, "bytes">, head: Buffer): Record<string, string> {
  const inline = inlineType(object.kind, head);
  return {
    ...STORED_OBJECT_HEADERS,
    ...(inline
      ? { "Content-Type": inline, "Content-Disposition": "inline" }
      : {
          // Media whose bytes are not what its field says has no type worth keeping.
          "Content-Type":
            object.kind === "document" ? downloadType(object.mimeType) : "application/octet-stream",
          "Content-Disposition": attachmentDisposition(object.name, object.kind),
        }),
  };
}
