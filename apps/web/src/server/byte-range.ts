import { parseByteRange } from "@switchboard/core";
import { errorResponse } from "./responses";

/**
 * Stored bytes as an HTTP answer with Range support (one range, parsed by core's
 * `parseByteRange`): 200 with the whole body, 206 with `Content-Range` for a satisfiable range,
 * 416 with `Content-Range: bytes *\/size` (and the error envelope) for one past the end.
 */
export function bytesResponse(request: Request, bytes: Buffer, mimeType: string): Response {
  const size = bytes.length;
  const headers = {
    "Content-Type": mimeType,
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, no-store",
  };
  const range = parseByteRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") {
    const refused = errorResponse(
      "validation_error",
      `The requested range cannot be satisfied; the audio has ${size} bytes`,
    );
    return new Response(refused.body, {
      status: 416,
      headers: { "Content-Type": "application/json", "Content-Range": `bytes */${size}` },
    });
  }
  if (range === "whole")
    return new Response(new Uint8Array(bytes), {
      status: 200,
      headers: { ...headers, "Content-Length": String(size) },
    });
  return new Response(new Uint8Array(bytes.subarray(range.start, range.end + 1)), {
    status: 206,
    headers: {
      ...headers,
      "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
      "Content-Length": String(range.end - range.start + 1),
    },
  });
}
