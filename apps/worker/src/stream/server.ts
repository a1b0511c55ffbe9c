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
  parseAuthorization,
} from "@switchboard/core";
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
    void upgrade(wss, deps, request, socket, head);
  });
  return wss;
}

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
      deps.config.STREAM_HEARTBEAT_S * 3000,
      "stream connections",
    );
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new StreamConnection(ws, deps, {
        agentId: principal.agentId,
        token,
        lease,
        afterSeq: query.data.afterSeq,
      });
      connection.start().catch((error) => {
        console.error("stream start failed", error);
        connection.close(1011, "internal_error");
      });
    });
  } catch (error) {
    if (error instanceof CoreError) return refuse(socket, error);
    console.error("stream upgrade failed", error);
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
