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
