// The web process's HTTP edge, loaded before Next (`node --import ./http-edge.mjs next start`).
// Some requests never reach a route handler, so no route can answer them in the spec's
// envelope, and Node or Next would answer them bare (an empty 400, a 431, a text 500):
// - bytes that are not a readable HTTP request (a broken request line, headers over the limit);
// - methods Next does not route (TRACE, PROPFIND, …), which Next answers with a 500;
// - a body sent to a page. Every path outside /api is a page (or a static file), and none takes a
//   body, yet Next buffers any page request's body (up to 10 MB) for the proxy (proxy.ts) before
//   anyone is known. A page is answered GET, HEAD and OPTIONS without a body; anything else is
//   refused here without reading a byte of the body, and the connection is closed.
// This wraps every HTTP server the process creates so all of them get an envelope answer. (Paths and
// queries that are not valid UTF-8 are the web app's own guard's: src/server/raw-requests.ts.) Plain
// JavaScript, since Next's server runs without a TypeScript loader; the codes are checked against
// the contract's registry by http-edge.test.ts.
import http from "node:http";
import path from "node:path";
import { agentRoutesFirst } from "./agent-routes.mjs";

/** The methods Next routes (route handlers, pages); everything else is answered here. */
const ROUTED = new Set(["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"]);

/** The methods a page answers; none of them with a request body. */
const PAGE_METHODS = ["GET", "HEAD", "OPTIONS"];

export const edgeErrors = {
  method: { status: 405, code: "method_not_allowed" },
  headers: { status: 431, code: "headers_too_large" },
  malformed: { status: 400, code: "malformed_request" },
  pageBody: { status: 413, code: "payload_too_large" },
};

const reasons = {
  400: "Bad Request",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
};

function envelope({ status, code }, message) {
  return {
    status,
    body: JSON.stringify({ error: { code, message } }),
  };
}

const fixedHeaders = {
  "Content-Type": "application/json",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; sandbox",
};

function refuse(request, response, kind, message, headers = {}) {
  const { status, body } = envelope(kind, message);
  response.writeHead(status, {
    ...fixedHeaders,
    ...headers,
    "Content-Length": Buffer.byteLength(body),
  });
  response.end(body);
  request.resume(); // read and drop any body
}

/**
 * Whether the request goes to an API route (`/api`, `/api/…`), its path read as Next reads it:
 * repeated slashes merged, dot segments resolved.
 */
export function isApiPath(url) {
  let pathname;
  try {
    const path = (url ?? "/").split("?")[0].replace(/\/{2,}/g, "/");
    pathname = new URL(path, "http://edge.invalid").pathname;
  } catch {
    return false;
  }
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** Whether the request says a body follows (a length over zero, or any transfer coding). */
function hasBody(request) {
  const length = request.headers["content-length"];
  return (
    request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0")
  );
}

/**
 * Refuses without reading the body: the answer goes out at once and Node closes the connection
 * after it (`Connection: close`), so the rest of the client's bytes are never taken in.
 */
function refuseUnread(response, kind, message, headers = {}) {
  const { status, body } = envelope(kind, message);
  response.shouldKeepAlive = false;
  response.writeHead(status, {
    ...fixedHeaders,
    ...headers,
    "Content-Length": Buffer.byteLength(body),
    Connection: "close",
  });
  response.end(body);
}

/** Answers here what no route could; false lets the request through to Next. */
function answeredAtEdge(request, response) {
  if (!ROUTED.has(request.method)) {
    refuse(
      request,
      response,
      edgeErrors.method,
      `${request.method} is not a method this service answers`,
      {
        Allow: [...ROUTED].join(", "),
      },
    );
    return true;
  }
  if (!isApiPath(request.url)) {
    if (!PAGE_METHODS.includes(request.method)) {
      refuseUnread(
        response,
        edgeErrors.method,
        `Pages answer ${PAGE_METHODS.join(", ")}; ${request.method} is for /api routes`,
        { Allow: PAGE_METHODS.join(", ") },
      );
      return true;
    }
    if (hasBody(request)) {
      refuseUnread(response, edgeErrors.pageBody, "Pages take no request body");
      return true;
    }
  }
  return false;
}

function answerClientError(error, socket) {
  // A connection that is already gone, or a reset: nothing to answer.
  if (!socket.writable || error.code === "ECONNRESET") return socket.destroy();
  const kind = error.code === "HPE_HEADER_OVERFLOW" ? edgeErrors.headers : edgeErrors.malformed;
  const message =
    kind === edgeErrors.headers
      ? "The request's headers are too large"
      : "The request could not be read as HTTP";
  const { status, body } = envelope(kind, message);
  const head = Object.entries({
    ...fixedHeaders,
    "Content-Length": Buffer.byteLength(body),
    Connection: "close",
  })
    .map(([name, value]) => `${name}: ${value}`)
    .join("\r\n");
  socket.end(`HTTP/1.1 ${status} ${reasons[status]}\r\n${head}\r\n\r\n${body}`);
}

/**
 * How long an idle kept-alive connection stays open. Node's 5 s default races clients (and load
 * balancers) that reuse a connection after about that long: the request is written as the server
 * closes, and the client reads ECONNRESET. It must outlast the idle timeout of whatever sits in
 * front (60 s is the common default), and the headers' own time limit must outlast it.
 */
export const KEEP_ALIVE_MS = 65_000;

/** Installs the edge on a server: unroutable and unreadable requests get the envelope. */
export function guardServer(server) {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = Math.max(server.headersTimeout, KEEP_ALIVE_MS + 1_000);
  server.emit = function guardedEmit(event, ...args) {
    if (event === "request" && answeredAtEdge(args[0], args[1])) return true;
    // Looked up on each call, not captured: the web app's own guard (src/server/raw-requests.ts)
    // wraps the prototype's emit later, when Next loads instrumentation.
    return Object.getPrototypeOf(this).emit.call(this, event, ...args);
  };
  server.on("clientError", answerClientError);
  return server;
}

/** Plain JavaScript before Next: no config module here, so its two settings are read directly. */
function agentRoutesEnabled() {
  // biome-ignore lint/style/noProcessEnv: see above.
  const { NODE_ENV, AGENT_API_VIA_NEXT } = process.env;
  return NODE_ENV === "production" && AGENT_API_VIA_NEXT !== "1";
}

const createServer = http.createServer;
http.createServer = function guardedCreateServer(...args) {
  // Next's request listener, with the Agent API's routes served before it (agent-routes.mjs).
  const listener = args.findIndex((arg) => typeof arg === "function");
  if (listener !== -1)
    args[listener] = agentRoutesFirst(args[listener], {
      // biome-ignore lint/style/noProcessEnv: Next's own build directory setting (next.config.ts).
      distDir: path.resolve(process.env.NEXT_DIST_DIR || ".next"),
      // Read once Next has set NODE_ENV (`next start`: production; `next dev` builds on demand).
      enabled: agentRoutesEnabled,
    });
  return guardServer(createServer.apply(this, args));
};
