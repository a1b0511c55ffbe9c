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
  return rangedResponse(
    request,
    bytes.length,
    (start, end) => new Uint8Array(bytes.subarray(start, end + 1)),
    headers,
  );
}

/**
 * The same answer for bytes kept elsewhere (the object store): `body(start, end)` gives the
 * inclusive range asked for, so only that range is ever read.
 */
export function rangedResponse(
  request: Request,
  size: number,
  body: (start: number, end: number) => BodyInit,
  headers: Record<string, string>,
): Response {
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
    return new Response(size === 0 ? null : body(0, size - 1), {
      status: 200,
      headers: { ...common, "Content-Length": String(size) },
    });
  return new Response(body(range.start, range.end), {
    status: 206,
    headers: {
      ...common,
      "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
      "Content-Length": String(range.end - range.start + 1),
    },
  });
}
