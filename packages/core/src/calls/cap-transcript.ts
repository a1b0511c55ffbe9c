import { MAX_CALL_TRANSCRIPT_BYTES } from "@switchboard/contract";

/**
 * The transcript as `call.ended` carries it: whole when it fits in 32 KB of UTF-8, otherwise cut
 * at the last character boundary at or below 32 KB (never inside a multi-byte character).
 */
export function capTranscript(
  transcript: string | null,
  maxBytes = MAX_CALL_TRANSCRIPT_BYTES,
): { transcript: string | null; transcriptTruncated: boolean } {
  if (transcript === null) return { transcript: null, transcriptTruncated: false };
  const bytes = Buffer.from(transcript, "utf8");
  if (bytes.length <= maxBytes) return { transcript, transcriptTruncated: false };
  let end = maxBytes;
  // A UTF-8 continuation byte is 10xxxxxx: step back to the byte that starts its character.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return { transcript: bytes.subarray(0, end).toString("utf8"), transcriptTruncated: true };
}
