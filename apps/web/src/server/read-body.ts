import { CoreError } from "@switchboard/core";

/**
 * The largest request body any surface reads: the Agent API's 10 MB voice note as base64 JSON
 * (~13.4 MB), and the console's voice note from a file through tRPC.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Body bytes this process holds at once while reading requests, across every surface: past it a
 * read is abandoned with 429 `rate_limited` (retry in a second) instead of growing the heap, so
 * many parallel large bodies cost at most this much memory.
 */
export class BodyBudget {
  used = 0;
  constructor(readonly limit: number) {}
}

export const processBodyBudget = new BodyBudget(64 * 1024 * 1024);

/**
 * A request body as text, read as it streams in and abandoned at `maxBytes`, whether the client
 * declared a length or sent it chunked: a body over the cap is never held in memory. The bytes
 * must be UTF-8; a body that is not is refused rather than read with replacement characters.
 */
export async function readBodyText(
  request: Request,
  maxBytes = MAX_BODY_BYTES,
  budget = processBodyBudget,
): Promise<string> {
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => {
        throw new CoreError("validation_error", "The body could not be read to its end", {
          issues: [{ path: "", message: "the body ended early" }],
        });
      });
      if (done) break;
      size += value.byteLength;
      budget.used += value.byteLength;
      if (size > maxBytes || budget.used > budget.limit) {
        await reader.cancel().catch(() => {});
        throw size > maxBytes ? tooLarge(maxBytes) : busy();
      }
      chunks.push(value);
    }
  } finally {
    budget.used -= size;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new CoreError("validation_error", "The body is not valid UTF-8", {
      issues: [{ path: "", message: "the body is not valid UTF-8" }],
    });
  }
}

function busy(): CoreError {
  return new CoreError(
    "rate_limited",
    "The server is reading too many request bodies at once; retry in 1 s",
    { retryAfterSeconds: 1 },
  );
}

function tooLarge(maxBytes: number): CoreError {
  return new CoreError("payload_too_large", `The body is larger than ${maxBytes} bytes`);
}
