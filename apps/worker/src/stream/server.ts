import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import {
  type ApiError,
  errorStatus,
  StreamConnectQuery,
  toErrorIssues,
} from "@switchboard/contract";
import {
  acquireLease,
  assertAgentActive,
  authenticateAgent,
  type CoreDeps,
  CoreError,
  log,
  parseAuthorization,
} from "@switchboard/core";
import { describeError } from "@switchboard/db";
import { WebSocketServer } from "ws";
import { StreamConnection } from "./connection";

export const STREAM_PATH = "/ws/agent/v1/stream";

/**
 * Serves `{ws_url}/ws/agent/v1/stream` on the worker's HTTP server. The upgrade is authorized
 * like a REST call (token in query `token` or `Authorization: Bearer agent:<token>`); a refused
 * upgrade gets the REST status and error envelope, never a WebSocket.
 */
export function attachStream(server: Server, deps: CoreDeps): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on("upgrade", (request, socket, head) => {
    // Node hands an upgrading socket over with no 'error' listener of its own. A client that
    // resets the connection while we authenticate would raise an uncaught error and end the
    // process, so the listener goes on first, before anything is awaited.
    socket.on("error", destroyOnError);
    upgrade(wss, deps, request, socket, head).catch((error: unknown) => {
      log.error({ err: describeError(error) }, "stream upgrade failed");
      socket.destroy();
    });
  });
  return wss;
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

/** Whether the client is still there to take an answer (it may have gone while we awaited). */
const gone = (socket: Duplex) => socket.destroyed || !socket.readable || !socket.writable;

async function upgrade(
  wss: WebSocketServer,
  deps: CoreDeps,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
) {
  const url = new URL(request.url ?? "/", "http://worker");
  if (url.pathname !== STREAM_PATH)
    return refuse(socket, new CoreError("not_found", "No such endpoint"));
  try {
    const query = StreamConnectQuery.safeParse(Object.fromEntries(url.searchParams));
    if (!query.success)
      throw new CoreError("validation_error", "The connect query failed validation", {
        issues: toErrorIssues(query.error),
      });
    const token = streamToken(query.data.token, request.headers.authorization);
    const principal = await authenticateAgent(deps, token);
    assertAgentActive(principal);
    const lease = await acquireLease(
      deps,
      "stream",
      principal.agentId,
      deps.config.STREAM_MAX_CONNECTIONS,
      "stream connections",
    );
    // ws completes (or drops) the handshake synchronously; a client that left during the awaits
    // above gets no connection, and its lease is given back now rather than held until it expires.
    let connection: StreamConnection | undefined;
    if (!gone(socket)) {
      socket.off("error", destroyOnError); // ws listens from here on
      wss.handleUpgrade(request, socket, head, (ws) => {
        connection = new StreamConnection(ws, deps, {
          agentId: principal.agentId,
          token,
          lease,
          afterSeq: query.data.afterSeq,
        });
      });
    }
    if (!connection) {
      socket.destroy();
      await lease.release().catch(() => {});
      return;
    }
    const started = connection;
    started.start().catch((error) => {
      log.error({ err: describeError(error) }, "stream start failed");
      started.close(1011, "internal_error");
    });
  } catch (error) {
    if (error instanceof CoreError) return refuse(socket, error);
    log.error({ err: describeError(error) }, "stream upgrade failed");
    refuse(socket, new CoreError("internal_error", "Something went wrong on our side"));
  }
}

function streamToken(fromQuery: string | undefined, header: string | undefined): string {
  if (fromQuery)
    return fromQuery.startsWith("agent:") ? fromQuery.slice("agent:".length) : fromQuery;
  const credential = parseAuthorization(header);
  if (credential.kind === "agent") return credential.secret;
  throw new CoreError(
    "unauthorized",
    credential.kind === "none"
      ? "Missing credentials; pass ?token=<token> or Authorization: Bearer agent:<token>"
      : "The stream accepts only agent tokens",
  );
}

function refuse(socket: Duplex, error: CoreError): void {
  if (gone(socket)) return;
  const status = errorStatus[error.code];
  const body: ApiError = { error: { code: error.code, message: error.message, ...error.details } };
  const json = JSON.stringify(body);
  const headers = [
    `HTTP/1.1 ${status} ${error.code}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(json)}`,
    ...(error.details.retryAfterSeconds ? [`Retry-After: ${error.details.retryAfterSeconds}`] : []),
    "Connection: close",
  ];
  socket.end(`${headers.join("\r\n")}\r\n\r\n${json}`);
}
