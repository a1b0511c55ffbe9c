import { errorResponse } from "./responses";

/**
 * Bytes with HTTP Range support (one range): 206 with Content-Range for `bytes=a-b`, `a-` and
 * `-n`; 416 when the range cannot be satisfied; the whole body otherwise.
 */
export function bytesResponse(request: Request, bytes: Buffer, mimeType: string): Response {
  const headers: Record<string, string> = {
    "Content-Type": mimeType,
    "Accept-Ranges": "bytes",
    "Cache-Control": "private, max-age=0",
  };
  const range = request.headers.get("range");
  if (!range)
    return new Response(new Uint8Array(bytes), {
      status: 200,
      headers: { ...headers, "Content-Length": String(bytes.length) },
    });
  const match = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
  const size = bytes.length;
  let start = match?.[1] ? Number(match[1]) : Number.NaN;
  let end = match?.[2] ? Number(match[2]) : size - 1;
  if (match && !match[1] && match[2]) {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  }
  end = Math.min(end, size - 1);
  if (!match || Number.isNaN(start) || start > end || start >= size) {
    const response = errorResponse(
      "validation_error",
      `Range ${range} cannot be satisfied (size ${size})`,
    );
    return new Response(response.body, {
      status: 416,
      headers: { "Content-Type": "application/json", "Content-Range": `bytes */${size}` },
    });
  }
  return new Response(new Uint8Array(bytes.subarray(start, end + 1)), {
    status: 206,
    headers: {
      ...headers,
      "Content-Range": `bytes ${start}-${end}/${size}`,
      "Content-Length": String(end - start + 1),
    },
  });
}
