import type { IncomingHttpHeaders } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { resolveDeliveryAddress, type UrlPolicy } from "./address-policy";

export interface PinnedRequestOptions {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange (DNS, connect, answer, body) must finish within this. */
  timeoutMs: number;
  /** Which hosts may be private or plain http (the development allowance). */
  policy: UrlPolicy;
  /** Response body bytes to keep; a longer body fails the request. 0 (default): discard it. */
  maxBodyBytes?: number;
  /** Instead: keep only the body's first bytes (an excerpt), whatever its length. */
  excerptBytes?: number;
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
  const maxBody = options.maxBodyBytes ?? 0;
  const excerpt = maxBody === 0 ? (options.excerptBytes ?? 0) : 0;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: PinnedResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
      request.destroy();
    };
    const tooLarge = () =>
      finish({ ok: false, reason: "too_large", error: `the body is larger than ${maxBody} bytes` });
    const request = send(
      target,
      {
        method: options.method,
        headers: {
          ...options.headers,
          ...(options.body !== undefined && { "Content-Length": Buffer.byteLength(options.body) }),
        },
        lookup,
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
    const timer = setTimeout(() => finish(timedOut()), Math.max(0, deadline - Date.now()));
    request.on("error", (error) => finish({ ok: false, reason: "network", error: error.message }));
    request.end(options.body);
  });
}
