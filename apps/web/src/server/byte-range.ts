import { parseByteRange } from "@switchboard/core";
import { errorResponse } from "./responses";

/**
 * Stored bytes as an HTTP answer with Range support (one range, parsed by core's
 * `parseByteRange`): 200 with the whole body, 206 with `Content-Range` for a satisfiable range,
 * 416 `range_not_satisfiable` with `Content-Range: bytes *\/size` (and the error envelope) for one
 * past the end. `headers` (type, disposition, policy) go on every one of the three.
 */
export function bytesResponse(
  request: Request,
  bytes: Buffer,
  headers: Record<string, string>,
): Response {
  const size = bytes.length;
  const common = { ...headers, "Accept-Ranges": "bytes", "Cache-Control": "private, no-store" };
  const range = parseByteRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") {
    const refused = errorResponse(
      "range_not_satisfiable",
      `The requested range cannot be satisfied; the stored body has ${size} bytes`,
    );
    return new Response(refused.body, {
      status: 416,
      headers: {
        ...common,
        "Content-Type": "application/json",
        "Content-Range": `bytes */${size}`,
      },
    });
  }
  if (range === "whole")
    return new Response(new Uint8Array(bytes), {
      status: 200,
      headers: { ...common, "Content-Length": String(size) },
    });
  return new Response(new Uint8Array(bytes.subarray(range.start, range.end + 1)), {
    status: 206,
    headers: {
      ...common,
      "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
      "Content-Length": String(range.end - range.start + 1),
    },
  });
}
