import { type IncomingMessage, Server, type ServerResponse } from "node:http";
import type { ApiError } from "@switchboard/contract";
import { loadConfig } from "@switchboard/core";
import { PEER_HEADER } from "./client-network";
import { HSTS, type OriginSettings, settleOriginHeaders } from "./console-origin";
import { API_POLICY } from "./security-headers";
import { escapeIssues } from "./storable-input";

let installed = false;

/**
 * What only the raw request still shows, handled before Next sees it (route handlers get a
 * `Request`, never the socket or the request line as sent):
 * - the socket's peer address goes into `PEER_HEADER`, replacing any such header a client sent;
 * - a request line whose percent-escapes are not UTF-8 is answered 400 `validation_error` here.
 *   Next would answer 500 for such a path, and quietly turn such a query value into U+FFFD.
 * - the origin headers are settled (`settleOriginHeaders`): a Host or trusted forwarded header
 *   that is not a host is answered 400 `malformed_request`, untrusted forwarded ones are dropped;
 * - an answer served over https gets HSTS.
 */
export function guardRawRequests(settings: OriginSettings = loadConfig()): void {
  if (installed) return;
  installed = true;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === "request" || event === "upgrade") {
      const request = args[0] as IncomingMessage;
      const peer = request.socket?.remoteAddress;
      request.headers[PEER_HEADER] = peer ?? "";
      const odd = settleOriginHeaders(request.headers, peer, settings);
      if (event === "request") {
        const response = args[1] as ServerResponse;
        if (odd) {
          refuse(response, { error: { code: "malformed_request", message: odd } });
          return true;
        }
        // Only a percent-escape can fail to decode: most request lines have none to check.
        const issues = request.url?.includes("%") ? escapeIssues(request.url) : [];
        if (issues.length > 0) {
          refuse(response, {
            error: { code: "validation_error", message: "The URL is not valid UTF-8", issues },
          });
          return true;
        }
        if (overHttps(request)) response.setHeader("Strict-Transport-Security", HSTS);
      } else if (odd) {
        (request.socket as { destroy?: () => void } | undefined)?.destroy?.();
        return true;
      }
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as Server["emit"];
  // The HTTP edge serves the Agent API's routes itself only once this guard is in place
  // (agent-routes.mjs): every request it takes has passed here first.
  (globalThis as Record<symbol, unknown>)[Symbol.for("switchboard.rawRequestGuard")] = true;
}

/** Served over https: TLS on this socket, or the console's settled origin is https. */
function overHttps(request: IncomingMessage): boolean {
  return (
    (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true ||
    request.headers["x-forwarded-proto"] === "https"
  );
}

function refuse(response: ServerResponse, body: ApiError): void {
  response.writeHead(400, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": API_POLICY,
  });
  response.end(JSON.stringify(body));
}
