import type { ServerFrame } from "@switchboard/contract";
import { errorFromBody, type SwitchboardError } from "./errors";

/** The WHATWG WebSocket surface the stream uses: the global one (Node 22+, browsers) or `ws`. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: each implementation has its own event classes
  addEventListener(type: string, listener: (event: any) => void): void;
}
export type WebSocketConstructor = new (url: string, options?: unknown) => WebSocketLike;

export function parseFrame(data: unknown): ServerFrame | null {
  try {
    return JSON.parse(typeof data === "string" ? data : String(data)) as ServerFrame;
  } catch {
    return null;
  }
}

interface NodeWebSocket extends WebSocketLike {
  on(
    event: "unexpected-response",
    listener: (
      request: { destroy(): void },
      response: {
        statusCode?: number;
        headers: Record<string, string | string[] | undefined>;
        on(event: "data", listener: (chunk: Buffer) => void): void;
        on(event: "end", listener: () => void): void;
      },
    ) => void,
  ): void;
}

/** With `ws`, a refused upgrade's status and envelope become the error (the global WebSocket hides them). */
export function onRefusal(ws: WebSocketLike, fail: (error: SwitchboardError) => void): void {
  const node = ws as NodeWebSocket;
  if (typeof node.on !== "function") return;
  node.on("unexpected-response", (request, response) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk) => chunks.push(chunk));
    response.on("end", () => {
      let body: unknown = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        // not the envelope
      }
      const retryAfter = response.headers["retry-after"];
      fail(
        errorFromBody(body, response.statusCode ?? 0, {
          retryAfterHeader: typeof retryAfter === "string" ? retryAfter : null,
        }),
      );
      request.destroy();
    });
  });
}

export async function resolveWebSocket(
  injected?: WebSocketConstructor,
): Promise<{ Ctor: WebSocketConstructor; headers: boolean }> {
  // `ws` (and classes like it) take options with headers; the WHATWG one only protocols.
  if (injected) return { Ctor: injected, headers: typeof injected.prototype?.on === "function" };
  try {
    const name = "ws"; // not a literal: browser bundlers must not try to bundle it
    const mod = (await import(name)) as { WebSocket?: WebSocketConstructor; default?: unknown };
    const Ctor = mod.WebSocket ?? (mod.default as WebSocketConstructor | undefined);
    if (Ctor) return { Ctor, headers: true };
  } catch {
    // not installed: fall back to the global one
  }
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return { Ctor: global, headers: false };
  throw new TypeError(
    "No WebSocket available: on Node 20 install `ws` (npm install ws) or pass options.WebSocket",
  );
}
