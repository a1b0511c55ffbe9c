import { CoreError } from "@switchboard/core";

/**
 * The largest request body any surface reads: the Agent API's 10 MB voice note as base64 JSON
 * (~13.4 MB), and the console's voice note from a file through tRPC.
 */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The most a refused (paused or rate-limited) agent's POST may carry: room for initialize,
 * tools/list and a batch of small calls, which is all it can still be answered. A larger body
 * is answered with the refusal itself before it is read (declared) or as soon as it passes this
 * (chunked), so a refused agent cannot make the process read 16 MB it will never act on.
 */
export const REFUSED_BODY_BYTES = 64 * 1024;

/**
 * The body declares a length that may be read before its call is let in, when its send is to let
 * it in (decision 0083): no more than a refused caller may make the server read.
 */
export function readableBeforeAdmission(headers: Headers): boolean {
  const declared = headers.get("content-length");
  return declared !== null && /^\d+$/.test(declared) && Number(declared) <= REFUSED_BODY_BYTES;
}

/**
 * Body bytes held at once while reading requests, so that many parallel bodies cost bounded
 * memory and no one caller can take what others need (decision 0061). A read that would pass a
 * bound is abandoned with 429 `rate_limited` (retry in a second):
 * - the process holds at most `limit` bytes across every surface;
 * - one caller (an agent, a signed-in person or developer key's account, else a client
 *   network) holds at most `perCaller`: enough for one largest body and some small ones, so a
 *   caller's parallel uploads refuse their own excess, never someone else's request;
 * - bytes past a body's first `smallBody` may use the process budget only up to `limit -
 *   reserve`: however many callers upload large bodies, the last `reserve` bytes stay for small
 *   ones (sign-ins, sends, console mutations).
 */
export class BodyBudget {
  used = 0;
  readonly byCaller = new Map<string, number>();
  constructor(
    readonly limit: number,
    readonly perCaller: number,
    readonly reserve: number,
    readonly smallBody: number,
  ) {}

  /**
   * Takes `bytes` for `caller`'s body (now `size` long with them); answers whose bound it would
   * pass instead, taking nothing.
   */
  take(caller: string, bytes: number, size: number): "caller" | "process" | null {
    const callerUsed = this.byCaller.get(caller) ?? 0;
    if (callerUsed + bytes > this.perCaller) return "caller";
    const ceiling = size > this.smallBody ? this.limit - this.reserve : this.limit;
    if (this.used + bytes > ceiling) return "process";
    this.used += bytes;
    this.byCaller.set(caller, callerUsed + bytes);
    return null;
  }

  /** Gives back what a finished (or abandoned) read held. */
  release(caller: string, bytes: number): void {
    if (bytes === 0) return;
    this.used -= bytes;
    const left = (this.byCaller.get(caller) ?? 0) - bytes;
    if (left > 0) this.byCaller.set(caller, left);
    else this.byCaller.delete(caller);
  }
}

export const processBodyBudget = new BodyBudget(
  64 * 1024 * 1024,
  MAX_BODY_BYTES + 4 * 1024 * 1024,
  8 * 1024 * 1024,
  64 * 1024,
);

/**
 * How slowly a body may arrive: each read may take `graceMs` plus the time its bytes would take
 * at `bytesPerSecond`. A body slower than that (a stall, a trickle holding its share for
 * minutes) is cut with 408 `request_timeout`. 64 KiB/s is half a megabit: a 16 MB upload may
 * take 10 s + 256 s, and a body that stops for 10 s with nothing in hand is cut.
 */
export interface BodyPace {
  graceMs: number;
  bytesPerSecond: number;
}

export const BODY_PACE: BodyPace = { graceMs: 10_000, bytesPerSecond: 64 * 1024 };

export interface ReadBodyOptions {
  /** Who is sending, as the budget counts callers (`callerKey`). */
  caller: string;
  maxBytes?: number;
  budget?: BodyBudget;
  pace?: BodyPace;
}

/** A caller as the budget counts them: the account or agent when known, else the network. */
export function callerKey(
  who: { agentId: string } | { userId: string } | { network: string | null },
): string {
  if ("agentId" in who) return `agent:${who.agentId}`;
  if ("userId" in who) return `user:${who.userId}`;
  return `network:${who.network ?? "unknown"}`;
}

/**
 * A request body as text, read as it streams in and abandoned at `maxBytes`, whether the client
 * declared a length or sent it chunked: a body over the cap is never held in memory. It is
 * also abandoned when it would pass the budget (429) or arrives slower than the pace (408). The
 * bytes must be UTF-8; a body that is not is refused rather than read with replacement
 * characters.
 */
export async function readBodyText(request: Request, options: ReadBodyOptions): Promise<string> {
  const {
    caller,
    maxBytes = MAX_BODY_BYTES,
    budget = processBodyBudget,
    pace = BODY_PACE,
  } = options;
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) throw tooLarge(maxBytes);
  const reader: BodyReader | undefined =
    (request as EdgeRequest)[EDGE_BODY] ?? request.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  const started = Date.now();
  let size = 0;
  let held = 0;
  try {
    for (;;) {
      const due = started + pace.graceMs + (size / pace.bytesPerSecond) * 1000;
      // What the client already sent is taken as it is, with no timer set for it.
      const { done, value } = reader.readNow?.() ?? (await readBy(reader, due));
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      const over = budget.take(caller, value.byteLength, size);
      if (over) throw busy(over);
      held += value.byteLength;
      chunks.push(value);
    }
  } catch (error) {
    // Not awaited: a body stream made from an async iterator settles a cancel only after its
    // pending read, which for a stalled client never comes.
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    budget.release(caller, held);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new CoreError("validation_error", "The body is not valid UTF-8", {
      issues: [{ path: "", message: "the body is not valid UTF-8" }],
    });
  }
}

/**
 * A body's chunks as a stream reader gives them: the web stream's, or the HTTP edge's, which also
 * answers what it holds at once (`readNow`: null when a read would have to wait).
 */
type BodyReader = Pick<ReadableStreamDefaultReader<Uint8Array>, "read" | "cancel"> & {
  readNow?(): ReadableStreamReadResult<Uint8Array> | null;
};

/**
 * Where a `Request` the web process's HTTP edge made keeps its body's reader (`EDGE_BODY` in
 * agent-routes.mjs): read from the Node request itself, without a web stream in between.
 */
const EDGE_BODY = Symbol.for("switchboard.edgeBody");
type EdgeRequest = Request & { [EDGE_BODY]?: BodyReader };

/** The next chunk, or 408 when it has not come by `due` (epoch ms). */
function readBy(reader: BodyReader, due: number): Promise<ReadableStreamReadResult<Uint8Array>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new CoreError("request_timeout", "The body arrived too slowly; send it again faster"),
        ),
      Math.max(0, due - Date.now()),
    );
    reader.read().then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      () => {
        clearTimeout(timer);
        reject(
          new CoreError("validation_error", "The body could not be read to its end", {
            issues: [{ path: "", message: "the body ended early" }],
          }),
        );
      },
    );
  });
}

function busy(over: "caller" | "process"): CoreError {
  const who = over === "caller" ? "too many of your request bodies" : "too many request bodies";
  return new CoreError("rate_limited", `The server is reading ${who} at once; retry in 1 s`, {
    retryAfterSeconds: 1,
  });
}

function tooLarge(maxBytes: number): CoreError {
  return new CoreError("payload_too_large", `The body is larger than ${maxBytes} bytes`);
}
