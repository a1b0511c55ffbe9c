/**
 * Tiny media files made in code for tests (no binaries in the repository): each has the real
 * leading bytes of its format, which is what the service checks.
 */

/** PCM WAV: 44-byte header, 8 kHz mono 16-bit silence. */
export function wavBytes(samples = 800): Buffer {
  const data = Buffer.alloc(samples * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28); // byte rate
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** One Ogg page carrying an OpusHead packet. */
export function oggBytes(): Buffer {
  const head = Buffer.from("OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00", "latin1");
  const page = Buffer.alloc(27);
  page.write("OggS", 0, "latin1");
  page[5] = 0x02; // beginning of stream
  page.writeUInt32LE(1, 14); // serial
  page[26] = 1; // one segment
  return Buffer.concat([page, Buffer.from([head.length]), head]);
}

/** An ID3v2 tag header followed by one MPEG-1 Layer III frame header. */
export const mp3Id3Bytes = () =>
  Buffer.concat([Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1"), mp3FrameBytes()]);

/** A bare MPEG-1 Layer III frame (sync 0xFFFB), 128 kbit/s, 44.1 kHz. */
export const mp3FrameBytes = () =>
  Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);

/** An ADTS AAC frame header (sync 0xFFF1, MPEG-4, no CRC). */
export const aacBytes = () =>
  Buffer.concat([Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc]), Buffer.alloc(9)]);

/** An ISO BMFF `ftyp` box, as m4a and mp4 start. */
export const ftypBytes = (brand = "M4A ") =>
  Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from(`ftyp${brand}\x00\x00\x00\x00isomM4A `, "latin1"),
  ]);

/** An EBML header, as webm starts. */
export const webmBytes = () =>
  Buffer.concat([
    Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01]),
    Buffer.from("webm", "latin1"),
  ]);

/** A 1x1 transparent PNG. */
export const pngBytes = () =>
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  );

export const jpegBytes = () =>
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
export const gifBytes = () => Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");
export const webpBytes = () =>
  Buffer.from("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00", "latin1");

export const dataUrl = (mime: string, bytes: Buffer) =>
  `data:${mime};base64,${bytes.toString("base64")}`;
