import type { ClientRequest, IncomingHttpHeaders } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { resolveDeliveryAddress, type UrlPolicy } from "./address-policy";

export interface PinnedRequestOptions {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The whole exchange (DNS, connect, answer, body) must finish within this. */
  timeoutMs: number;
  /** Which hosts may be private or plain http (the development allowance). */
  policy: UrlPolicy;
  /** Response body bytes to keep; a longer body fails the request. 0 (default): discard it. */
  maxBodyBytes?: number;
  /** Instead: keep only the body's first bytes (an excerpt), whatever its length. */
  excerptBytes?: number;
  /**
   * Keep the connection open for the next request to the same host and port (webhooks: one
   * TCP connection, and one TLS handshake, per receiver instead of per event).
   */
  reuseConnection?: boolean;
}

/**
 * The pools of kept connections. A kept connection goes to an address that was checked when it
 * was opened; every request still resolves and checks the host first, so a host that now
 * resolves to a forbidden address is refused before any connection is used. An idle connection
 * is closed after `timeout` (or a second before a shorter Keep-Alive hint from the server),
 * before most servers' idle limit (Node's own is 5 s), so a request rarely meets one the server
 * just closed. Only idle connections time out: an answer in progress has the caller's deadline.
 */
const keptConnections = {
  "http:": new HttpAgent({ keepAlive: true, timeout: 4_000 }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: 4_000 }),
};

/**
 * A kept connection the server closed while idle fails as it is used, before any answer: the
 * request is sent once more on a new connection. It may have reached the server: a webhook may
 * be delivered twice, which its at-least-once contract allows.
 */
function closedWhileIdle(request: ClientRequest, error: NodeJS.ErrnoException): boolean {
  return request.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE");
}

export type PinnedResponse =
  | { ok: true; status: number; headers: IncomingHttpHeaders; body: Buffer }
  | { ok: false; reason: "address" | "network" | "timeout" | "too_large"; error: string };

/**
 * One HTTP request to a host the agent named (a webhook, a media URL), safe against SSRF: the
 * host is resolved and every address checked by the address policy (public only, unless allowed
 * for development), and the connection goes to exactly the address checked, whatever DNS answers
 * a moment later. Redirects are not followed (the caller decides). Never throws.
 */
export async function pinnedRequest(
  target: URL,
  options: PinnedRequestOptions,
): Promise<PinnedResponse> {
  const deadline = Date.now() + options.timeoutMs;
  const timedOut = (): PinnedResponse => ({
    ok: false,
    reason: "timeout",
    error: `no answer within ${options.timeoutMs} ms`,
  });
  let pinned: { address: string; family: 4 | 6 };
  try {
    const resolved = await Promise.race([
      resolveDeliveryAddress(target, options.policy),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), options.timeoutMs).unref()),
    ]);
    if (!resolved) return timedOut();
    pinned = resolved;
  } catch (error) {
    return { ok: false, reason: "address", error: (error as Error).message };
  }
  const lookup: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const agent = options.reuseConnection
    ? keptConnections[target.protocol as keyof typeof keptConnections]
    : undefined;
  const maxBody = options.maxBodyBytes ?? 0;
  const excerpt = maxBody === 0 ? (options.excerptBytes ?? 0) : 0;
  return new Promise((resolve) => {
    let settled = false;
    let request: ClientRequest;
    const finish = (answer: PinnedResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
      // A fully read answer leaves a kept connection for the next request; anything else
      // closes it.
      if (!(answer.ok && agent)) request.destroy();
    };
    const tooLarge = () =>
      finish({ ok: false, reason: "too_large", error: `the body is larger than ${maxBody} bytes` });
    const start = (retried: boolean) => {
      request = send(
        target,
        {
          method: options.method,
          headers: {
            ...options.headers,
            ...(options.body !== undefined && {
              "Content-Length": Buffer.byteLength(options.body),
            }),
          },
          lookup,
          agent: agent ?? false,
        },
        (response) => {
          const declared = Number(response.headers["content-length"]);
          if (maxBody > 0 && declared > maxBody) return tooLarge();
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            const before = size;
            size += chunk.length;
            if (maxBody > 0) {
              if (size > maxBody) tooLarge();
              else chunks.push(chunk);
            } else if (excerpt > before) chunks.push(chunk.subarray(0, excerpt - before));
          });
          response.on("end", () =>
            finish({
              ok: true,
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on("error", (error) =>
            finish({ ok: false, reason: "network", error: error.message }),
          );
        },
      );
      const sent = request;
      sent.on("error", (error: NodeJS.ErrnoException) => {
        if (!retried && !settled && closedWhileIdle(sent, error)) start(true);
        else finish({ ok: false, reason: "network", error: error.message });
      });
      sent.end(options.body);
    };
    const timer = setTimeout(() => finish(timedOut()), Math.max(0, deadline - Date.now()));
    start(false);
  });
}
