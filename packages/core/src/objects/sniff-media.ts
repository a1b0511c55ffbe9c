/**
 * Media formats recognised by their first bytes, never by what the sender declared. Each answers
 * the MIME type the service stores and serves, or null when the bytes are not of that kind.
 */

const ascii = (bytes: Buffer, from: number, to: number) =>
  bytes.subarray(from, to).toString("latin1");
const isEbml = (bytes: Buffer) => bytes.length >= 4 && bytes.readUInt32BE(0) === 0x1a45dfa3;
const isFtyp = (bytes: Buffer) => bytes.length >= 12 && ascii(bytes, 4, 8) === "ftyp";

/** mp3 (ID3 tag or MPEG frame sync), m4a (ftyp), aac (ADTS), webm (EBML), ogg/opus (OggS), wav. */
export function sniffAudio(bytes: Buffer): string | null {
  if (bytes.length < 4) return null;
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WAVE")
    return "audio/wav";
  if (ascii(bytes, 0, 4) === "OggS") return "audio/ogg";
  if (isEbml(bytes)) return "audio/webm";
  if (isFtyp(bytes)) return "audio/mp4";
  if (ascii(bytes, 0, 3) === "ID3") return "audio/mpeg";
  const [b0 = 0, b1 = 0] = bytes;
  if (b0 === 0xff && (b1 & 0xf6) === 0xf0) return "audio/aac"; // ADTS: sync 0xFFF, layer 00
  if (b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0) return "audio/mpeg"; // layer I-III
  return null;
}

/** png, jpeg, gif, webp. */
export function sniffImage(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a") return "image/gif";
  if (ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "image/webp";
  return null;
}

/** mp4/mov (ftyp), webm/mkv (EBML), ogg. */
export function sniffVideo(bytes: Buffer): string | null {
  if (isFtyp(bytes)) return ascii(bytes, 8, 10) === "qt" ? "video/quicktime" : "video/mp4";
  if (isEbml(bytes)) return "video/webm";
  if (ascii(bytes, 0, 4) === "OggS") return "video/ogg";
  return null;
}

/** Office and OpenDocument files are zip archives; their declared type is kept when the bytes are one. */
const zipDocumentTypes = new Set([
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.oasis.opendocument.text",
  "application/vnd.oasis.opendocument.spreadsheet",
  "application/vnd.oasis.opendocument.presentation",
  "application/epub+zip",
]);

/** Plain text kinds a document may keep when its bytes are text (UTF-8, no NUL). */
const textDocumentTypes = new Set(["text/plain", "text/csv", "text/markdown"]);

/**
 * The type a document is stored and served as. Never what makes a browser run it (HTML, SVG,
 * XML, JavaScript, …): a known passive format recognised by its bytes (PDF, zip and the Office
 * files inside one, images, audio, video), declared plain text that is text, and otherwise
 * `application/octet-stream`. The declared type only chooses among passive ones.
 */
export function documentType(bytes: Buffer, declared: string | null | undefined): string {
  const claimed = declared?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (ascii(bytes, 0, 5) === "%PDF-") return "application/pdf";
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x504b0304)
    return zipDocumentTypes.has(claimed) ? claimed : "application/zip";
  const media = sniffImage(bytes) ?? sniffVideo(bytes) ?? sniffAudio(bytes);
  if (media) return media;
  if (textDocumentTypes.has(claimed) && isText(bytes)) return claimed;
  return "application/octet-stream";
}

/** A declared document type as a message may carry it: passive types only. */
export function safeDeclaredDocumentType(declared: string | null | undefined): string | null {
  if (!declared) return null;
  const claimed = declared.split(";")[0]?.trim().toLowerCase() ?? "";
  const passive =
    claimed === "application/pdf" ||
    claimed === "application/zip" ||
    zipDocumentTypes.has(claimed) ||
    textDocumentTypes.has(claimed) ||
    /^(image\/(png|jpeg|gif|webp)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+)$/.test(claimed);
  return passive ? claimed : "application/octet-stream";
}

function isText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
