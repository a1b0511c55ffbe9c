// The Agent API's route handlers, called by the web process's HTTP edge without Next's request
// handling (decision 0081). On the development VM Next spent ~3.3 ms of CPU on every request
// around a route handler doing one `select 1` (a plain Node server: ~0.26 ms), most of every
// Agent API call. The handlers are Next's own build of the App Router route files
// (app/api/agent/v1/**/route.ts, found through the build's app-paths manifest), so routes, the
// pipeline and every answer are defined once; only the dispatch differs. Next still serves
// everything else, and any request this does not take: pages, other APIs, HEAD and OPTIONS, a
// catch-all's paths, a path it would normalise (a trailing or doubled slash, dot segments), all
// of `next dev`, and every request when AGENT_API_VIA_NEXT=1.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const PREFIX = "/api/agent/v1/";
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/** Set by the web app's raw-request guard once Next has run instrumentation (raw-requests.ts). */
export const GUARD_INSTALLED = Symbol.for("switchboard.rawRequestGuard");

/**
 * The Agent API's routes in a Next build (`distDir`): each route file's path pattern and
 * compiled module, static segments before dynamic ones so that a fixed path wins; and Next's
 * header rules (next.config's `headers()`, compiled into the routes manifest).
 */
export function agentRouteTable(distDir) {
  const require = createRequire(path.join(distDir, "server/"));
  const pages = JSON.parse(
    readFileSync(path.join(distDir, "server/app-paths-manifest.json"), "utf8"),
  );
  const routes = [];
  for (const [page, file] of Object.entries(pages)) {
    if (!page.startsWith(PREFIX) || !page.endsWith("/route")) continue;
    const segments = page.slice(1, -"/route".length).split("/");
    // A catch-all answers what no route does (the envelope's 404): Next's to match.
    if (segments.some((segment) => segment.startsWith("[..."))) continue;
    let handlers;
    routes.push({
      segments,
      dynamic: segments.filter((segment) => segment.startsWith("[")).length,
      async handlers() {
        if (handlers) return handlers;
        const { routeModule } = require(path.join(distDir, "server", file));
        await routeModule.ensureUserland();
        handlers = routeModule.userland;
        return handlers;
      },
    });
  }
  routes.sort((a, b) => a.dynamic - b.dynamic);
  const { headers = [] } = JSON.parse(
    readFileSync(path.join(distDir, "routes-manifest.json"), "utf8"),
  );
  const headerRules = headers.map((rule) => ({
    regex: new RegExp(rule.regex),
    headers: rule.headers,
  }));
  return { routes, headerRules };
}

/**
 * The route a request line's path names, with its decoded parameters; undefined for a path Next
 * would treat otherwise (normalise, redirect, or leave to a catch-all).
 */
export function matchAgentRoute(routes, pathname) {
  if (!pathname.startsWith(PREFIX) || pathname.endsWith("/")) return undefined;
  const parts = pathname.slice(1).split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) return undefined;
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params = {};
    let matched = true;
    for (let i = 0; i < parts.length && matched; i++) {
      const segment = route.segments[i];
      if (segment.startsWith("[")) {
        const value = decodedSegment(parts[i]);
        if (value === undefined) matched = false;
        else params[segment.slice(1, -1)] = value;
      } else matched = segment === parts[i];
    }
    if (matched) return { route, params };
  }
  return undefined;
}

function decodedSegment(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/**
 * Wraps Next's request listener: an Agent API request goes to its route handler directly, any
 * other to Next. Decided at the first request after Next has run instrumentation: `enabled()`
 * (a production server, not told otherwise) and a build in `distDir`.
 */
export function agentRoutesFirst(nextListener, { distDir, enabled }) {
  let table;
  const direct = () => {
    if (table !== undefined) return table;
    if (!globalThis[GUARD_INSTALLED]) return null; // Next has not run instrumentation yet
    table =
      enabled() && existsSync(path.join(distDir, "server/app-paths-manifest.json"))
        ? agentRouteTable(distDir)
        : false;
    return table;
  };
  return function agentRoutesOrNext(request, response) {
    const routes = request.url?.startsWith(PREFIX) && METHODS.has(request.method) && direct();
    if (routes) {
      const queryAt = request.url.indexOf("?");
      const pathname = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
      const found = matchAgentRoute(routes.routes, pathname);
      if (found) {
        serve(found, pathname, routes.headerRules, request, response, nextListener);
        return;
      }
    }
    nextListener(request, response);
  };
}

async function serve({ route, params }, pathname, headerRules, request, response, nextListener) {
  let answer;
  const aborted = new AbortController();
  // Next aborts a handler's `request.signal` when the client goes away (a parked long-poll
  // stops waiting); so does this.
  response.once("close", () => {
    if (!response.writableFinished) aborted.abort();
  });
  try {
    const handler = (await route.handlers())[request.method];
    // A method the route file does not export: Next's 405, with its Allow.
    if (!handler) return nextListener(request, response);
    answer = await handler(webRequest(request, aborted.signal), {
      params: Promise.resolve(params),
    });
  } catch (error) {
    // The pipeline answers its own errors; this is a handler that failed to load or threw past it.
    logError("agent route failed", error);
    answer = Response.json(
      { error: { code: "internal_error", message: "Something went wrong on our side" } },
      { status: 500, headers: { "Cache-Control": "no-store" } },
    );
  }
  // next.config's header rules first, then the answer's own, as Next applies them.
  for (const rule of headerRules)
    if (rule.regex.test(pathname))
      for (const { key, value } of rule.headers) response.setHeader(key, value);
  response.statusCode = answer.status;
  for (const [name, value] of answer.headers)
    if (name !== "set-cookie") response.setHeader(name, value);
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader("set-cookie", cookies);
  await sendBody(answer.body, response, aborted.signal);
}

/**
 * Where a `Request` the edge made keeps its body's reader (`bodyReader`). The body is not the
 * `Request`'s own (a web stream): `readBodyText` (src/server/read-body.ts), the only reader of
 * an Agent API body, takes it from here, straight from the Node request.
 */
export const EDGE_BODY = Symbol.for("switchboard.edgeBody");

/**
 * The `Request` Next would hand the handler: the settled host and the headers; its body, read
 * through `EDGE_BODY`. Made into a web stream (and the `Request` around it), a POST's body cost
 * ~40–60 µs of CPU before a byte was read: a tenth of what an MCP `getMe` adds to `GET /me`.
 */
function webRequest(request, signal) {
  const secure =
    request.socket?.encrypted === true || request.headers["x-forwarded-proto"] === "https";
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const made = new Request(
    `${secure ? "https" : "http"}://${request.headers.host ?? "localhost"}${request.url}`,
    { method: request.method, headers, signal },
  );
  if (request.method !== "GET" && request.method !== "HEAD") made[EDGE_BODY] = bodyReader(request);
  return made;
}

/**
 * The request's body, chunk by chunk, with a stream reader's `read()` and `cancel()`: the
 * request stays paused while no read waits (a client cannot make the process hold more than a
 * chunk ahead of its reader), a read fails when the client leaves before the body ends, and
 * `cancel()` destroys the request with its socket left to the answer, so the refusal that
 * cancelled the read (413, 408, 429) still reaches the client. It takes the first chunk at once,
 * as the web stream it replaces did, so a small body sent whole is held even if the client
 * leaves before its reader starts.
 */
export function bodyReader(request) {
  const chunks = [];
  let waiting = null;
  let ended = false;
  let failure = null;
  const settle = () => {
    if (!waiting) return;
    const { resolve, reject } = waiting;
    if (chunks.length > 0) resolve({ done: false, value: chunks.shift() });
    else if (failure) reject(failure);
    else if (ended) resolve({ done: true, value: undefined });
    else return;
    waiting = null;
  };
  const length = request.headers["content-length"];
  const declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : -1;
  let received = 0;
  request.on("data", (chunk) => {
    received += chunk.length;
    chunks.push(chunk);
    if (!waiting) request.pause();
    settle();
  });
  request.once("end", () => {
    ended = true;
    settle();
  });
  request.once("error", (error) => {
    failure ??= error;
    settle();
  });
  request.once("close", () => {
    if (!ended)
      failure ??= new DOMException("The client went away before the body ended", "AbortError");
    settle();
  });
  return {
    /**
     * What `read()` would answer at once, without waiting: a chunk the request holds, or the end
     * of a body received whole (all its declared length, before the 'end' event); else null.
     */
    readNow() {
      if (failure) return null;
      // Takes what the parser already holds (its 'data' event fills `chunks`).
      if (chunks.length === 0 && !ended) request.read();
      if (chunks.length > 0) return { done: false, value: chunks.shift() };
      if (ended || received === declared) return { done: true, value: undefined };
      return null;
    },
    read() {
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        settle();
        if (waiting) request.resume();
      });
    },
    async cancel() {
      chunks.length = 0;
      ended = true;
      // As Node's own stream helpers end a server request: the request is destroyed and its
      // socket left to the response.
      request.socket = null;
      request.destroy();
    },
  };
}

/**
 * Writes the answer's body. A body that is whole at once (every JSON answer) goes out in one
 * write with its Content-Length; a stream (audio, a long answer) is written as it comes, at
 * the client's pace, and stopped if the client goes away.
 */
async function sendBody(body, response, aborted) {
  if (!body) return response.end();
  const reader = body.getReader();
  aborted.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
  try {
    const first = await reader.read();
    if (first.done) return response.end();
    const pending = reader.read();
    const next = await Promise.race([pending, new Promise((resolve) => setImmediate(resolve))]);
    if (next?.done) return response.end(first.value);
    response.write(first.value);
    let chunk = next ?? (await pending);
    while (!chunk.done) {
      if (!response.write(chunk.value)) await drainedOrClosed(response);
      if (response.destroyed) return;
      chunk = await reader.read();
    }
    response.end();
  } catch (error) {
    if (!aborted.aborted) logError("agent route's answer failed while being sent", error);
    response.destroy();
  }
}

/** Until the response can take more, or is gone; neither listener outlives the wait. */
function drainedOrClosed(response) {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });
}

/** A line in the service's JSON log format (pino's fields), the error described, not dumped. */
function logError(msg, error) {
  const err = { type: error?.name ?? typeof error, message: String(error?.message ?? error) };
  process.stdout.write(
    `${JSON.stringify({ level: 50, time: Date.now(), service: "switchboard", component: "agent-routes", err, msg })}\n`,
  );
}
