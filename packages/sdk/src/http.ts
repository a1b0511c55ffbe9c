import { errorFromBody, SwitchboardError } from "./errors";
import type { Route } from "./route-table";
import type { CallOptions } from "./types";

/** Options shared by the Agent and Developer API clients. */
export interface HttpOptions {
  /** The API base, ending in `/api`. Default `http://localhost:3000/api` (a local `npm start`). */
  baseUrl?: string;
  /** Retries after a 429 or, for idempotent calls, a network failure. Default 2. */
  maxRetries?: number;
  /** First backoff after a network failure, doubled each time (with jitter). Default 500 ms. */
  retryDelayMs?: number;
  /**
   * The longest wait before a retry: a 429 asking for longer is thrown at once, and backoff
   * stops growing here. Default 60 000 ms (per-minute limits ask for at most a minute).
   */
  maxRetryDelayMs?: number;
  /** Per attempt. Default 30 000 ms (a long-poll adds its `wait`). */
  timeoutMs?: number;
  /** Another `fetch` (a proxy agent, a test double of the network). Default the global one. */
  fetch?: typeof fetch;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** Called before each retry: what failed and how long the client waits. */
  onRetry?: (retry: {
    operationId: string;
    attempt: number;
    delayMs: number;
    error: Error;
  }) => void;
}

export const DEFAULT_BASE_URL = "http://localhost:3000/api";

/**
 * Methods that may be sent again after a network failure without doing the thing twice; a POST
 * may too, as it carries an `Idempotency-Key` (the service answers a retry with the first answer).
 */
const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "POST"]);
/** Answers of a gateway or a restarting service, retried like network failures. */
const RETRY_STATUS = new Set([502, 503, 504]);

export class Http {
  readonly baseUrl: string;
  private readonly options: Required<
    Pick<HttpOptions, "maxRetries" | "retryDelayMs" | "maxRetryDelayMs" | "timeoutMs">
  >;

  constructor(
    private readonly authorization: string,
    private readonly init: HttpOptions,
  ) {
    this.baseUrl = (init.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.options = {
      maxRetries: init.maxRetries ?? 2,
      retryDelayMs: init.retryDelayMs ?? 500,
      maxRetryDelayMs: init.maxRetryDelayMs ?? 60_000,
      timeoutMs: init.timeoutMs ?? 30_000,
    };
  }

  /** Calls one operation with its flattened input; retries as the options say. */
  async call(
    operationId: string,
    route: Route,
    input: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<unknown> {
    const request = buildRequest(this.baseUrl, route, input);
    // One key for the call, the same on every retry: the service does the write once.
    if (route.method === "POST")
      options = {
        ...options,
        headers: {
          ...options.headers,
          "Idempotency-Key": options.idempotencyKey ?? globalThis.crypto.randomUUID(),
        },
      };
    const maxRetries = options.maxRetries ?? this.options.maxRetries;
    for (let attempt = 1; ; attempt++) {
      let error: SwitchboardError;
      try {
        return await this.once(operationId, route, request, options);
      } catch (caught) {
        if (!(caught instanceof SwitchboardError)) throw caught;
        error = caught;
      }
      const delayMs = this.retryDelay(route, error, attempt);
      if (delayMs === null || attempt > maxRetries || options.signal?.aborted) throw error;
      this.init.onRetry?.({ operationId, attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  /** How long to wait before trying again, or null when this failure is final. */
  private retryDelay(route: Route, error: SwitchboardError, attempt: number): number | null {
    if (error.status === 429) {
      const ms = (error.retryAfterSeconds ?? 1) * 1000;
      return ms <= this.options.maxRetryDelayMs ? ms : null;
    }
    const transient =
      error.code === "network_error" ||
      error.code === "timeout" ||
      RETRY_STATUS.has(error.status) ||
      // The first attempt (its answer lost) is still running: its answer comes on a retry.
      error.code === "idempotency_key_in_use";
    if (!transient || !IDEMPOTENT.has(route.method)) return null;
    const backoff = this.options.retryDelayMs * 2 ** (attempt - 1);
    return Math.min(this.options.maxRetryDelayMs, backoff * (0.75 + Math.random() / 2));
  }

  private async once(
    operationId: string,
    route: Route,
    request: { url: string; body?: string },
    options: CallOptions,
  ): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await (this.init.fetch ?? fetch)(request.url, {
        method: route.method,
        headers: {
          Accept: route.binary ? "*/*" : "application/json",
          ...(request.body !== undefined && { "Content-Type": "application/json" }),
          ...this.init.headers,
          ...options.headers,
          Authorization: this.authorization,
        },
        body: request.body,
        signal,
      });
    } catch (cause) {
      // The caller's own abort is not a failure to report as ours.
      if (options.signal?.aborted) throw options.signal.reason ?? cause;
      const timedOut = timeout.aborted;
      throw new SwitchboardError({
        code: timedOut ? "timeout" : "network_error",
        message: timedOut
          ? `${operationId}: no answer within ${timeoutMs} ms`
          : `${operationId}: ${describeNetworkError(cause)}`,
        status: 0,
        operationId,
        cause,
      });
    }
    if (response.ok) {
      if (route.binary) return response;
      const text = await response.text();
      try {
        return JSON.parse(text);
      } catch (cause) {
        throw new SwitchboardError({
          code: "unexpected_response",
          message: `${operationId}: the answer is not JSON`,
          status: response.status,
          operationId,
          cause,
        });
      }
    }
    const text = await response.text().catch(() => "");
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not the envelope; reported as unexpected_response below
    }
    throw errorFromBody(body, response.status, {
      operationId,
      retryAfterHeader: response.headers.get("retry-after"),
    });
  }
}

/** The URL and JSON body of a call: path parameters, then query keys, the rest is the body. */
export function buildRequest(
  baseUrl: string,
  route: Route,
  input: Record<string, unknown>,
): { url: string; body?: string } {
  const rest: Record<string, unknown> = { ...input };
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    delete rest[name];
    if (value === undefined || value === null || value === "")
      throw new TypeError(`${route.method} ${route.path}: ${name} is required`);
    return encodeURIComponent(String(value));
  });
  const query = new URLSearchParams();
  for (const name of route.query) {
    const value = rest[name];
    delete rest[name];
    if (value !== undefined && value !== null) query.append(name, String(value));
  }
  const search = query.toString() ? `?${query}` : "";
  return {
    url: `${baseUrl}${path}${search}`,
    ...(route.body && { body: JSON.stringify(rest) }),
  };
}

function describeNetworkError(error: unknown): string {
  let root = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  const code = (root as { code?: unknown }).code;
  const message = root instanceof Error ? root.message : String(root);
  return typeof code === "string" && !message.includes(code) ? `${code} ${message}` : message;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
