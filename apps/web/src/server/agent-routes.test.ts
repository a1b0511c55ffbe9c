import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: plain JavaScript, loaded before Next by `node --import`.
import { agentRoutesFirst, bodyReader, GUARD_INSTALLED } from "../../agent-routes.mjs";

/**
 * A Next build's shape, made by hand: the app-paths manifest, the routes manifest's header rules,
 * and compiled route modules (`routeModule.userland`) whose handlers report what they were given.
 */
function fakeBuild(): string {
  const distDir = mkdtempSync(path.join(tmpdir(), "agent-routes-"));
  const server = path.join(distDir, "server");
  const routes: Record<string, string> = {
    "/api/agent/v1/things/[thingId]/route": "things-one.js",
    "/api/agent/v1/things/mine/route": "things-mine.js",
    "/api/agent/v1/slow/route": "slow.js",
    "/api/agent/v1/large/route": "large.js",
    "/api/agent/v1/[...path]/route": "catch-all.js",
    "/api/other/route": "other.js",
  };
  mkdirSync(server, { recursive: true });
  writeFileSync(path.join(server, "app-paths-manifest.json"), JSON.stringify(routes));
  writeFileSync(
    path.join(distDir, "routes-manifest.json"),
    JSON.stringify({
      headers: [
        { regex: "^(?:/(.*))?$", headers: [{ key: "X-Frame-Options", value: "DENY" }] },
        { regex: "^/api(?:/(.*))?$", headers: [{ key: "Content-Security-Policy", value: "api" }] },
      ],
    }),
  );
  // A body is read as readBodyText reads it: through the edge's reader, if there is one.
  const handlers = `
    const bodyOf = async (request) => {
      const reader = request[Symbol.for("switchboard.edgeBody")];
      if (!reader) return request.body ? await request.text() : null;
      let text = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        text += Buffer.from(chunk.value).toString();
      return text;
    };
    const seen = async (request, context) => Response.json(
      { method: request.method, url: request.url, params: await context.params,
        peer: request.headers.get("x-test"), body: await bodyOf(request),
        own: request.body === null ? "none" : "stream" },
      { headers: { "X-Route": "handler", "Content-Security-Policy": "route's own" } });
    module.exports.routeModule = { ensureUserland: async () => {}, userland: {
      GET: seen, POST: seen,
      DELETE: async () => { throw new Error("boom"); } } };`;
  writeFileSync(path.join(server, "things-one.js"), handlers);
  writeFileSync(
    path.join(server, "things-mine.js"),
    `module.exports.routeModule = { ensureUserland: async () => {}, userland: {
      GET: async () => new Response("mine") } };`,
  );
  // A stream that sends a chunk, then waits for the client or the abort.
  writeFileSync(
    path.join(server, "slow.js"),
    `globalThis.slowAborted = 0;
    module.exports.routeModule = { ensureUserland: async () => {}, userland: {
      GET: async (request) => {
        request.signal.addEventListener("abort", () => globalThis.slowAborted++);
        let sent = 0;
        return new Response(new ReadableStream({
          async pull(controller) {
            if (sent++ === 0) return controller.enqueue(new TextEncoder().encode("first;"));
            await new Promise((resolve) => setTimeout(resolve, 50));
            controller.enqueue(new TextEncoder().encode("more;"));
            if (sent > 3) controller.close();
          } }));
      } } };`,
  );
  // A long answer in many chunks: 8 MB, more than a slow client's socket takes at once.
  writeFileSync(
    path.join(server, "large.js"),
    `module.exports.routeModule = { ensureUserland: async () => {}, userland: {
      GET: async () => {
        let sent = 0;
        return new Response(new ReadableStream({
          pull(controller) {
            if (sent++ === 128) return controller.close();
            controller.enqueue(new Uint8Array(64 * 1024).fill(97));
          } }));
      } } };`,
  );
  return distDir;
}

let port = 0;
let enabled = true;
let server: Server;
beforeAll(async () => {
  const distDir = fakeBuild();
  server = createServer(
    agentRoutesFirst(
      (_request: IncomingMessage, response: ServerResponse) => {
        response.writeHead(299, { "Content-Type": "text/plain" });
        response.end("next");
      },
      { distDir, enabled: () => enabled },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const at = (pathname: string, init?: RequestInit) =>
  fetch(`http://127.0.0.1:${port}${pathname}`, init);

describe("the Agent API's routes at the HTTP edge", () => {
  it("leaves every request to Next until the web app's guard is installed", async () => {
    delete (globalThis as Record<symbol, unknown>)[GUARD_INSTALLED];
    expect((await at("/api/agent/v1/things/abc")).status).toBe(299);
    (globalThis as Record<symbol, unknown>)[GUARD_INSTALLED] = true;
  });

  it("calls the route's handler with its decoded params, Next's header rules then its own", async () => {
    const answer = await at("/api/agent/v1/things/a%20b%F0%9F%91%8D?x=1", {
      headers: { "x-test": "given" },
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      method: "GET",
      url: `http://127.0.0.1:${port}/api/agent/v1/things/a%20b%F0%9F%91%8D?x=1`,
      params: { thingId: "a b👍" },
      peer: "given",
      body: null,
      own: "none",
    });
    expect(answer.headers.get("x-frame-options")).toBe("DENY");
    expect(answer.headers.get("content-security-policy")).toBe("route's own");
    expect(answer.headers.get("x-route")).toBe("handler");
    // A whole body goes out in one write, with its length.
    expect(answer.headers.get("content-length")).not.toBeNull();
  });

  it("prefers a fixed segment to a parameter, and hands a body to the handler's reader", async () => {
    expect(await (await at("/api/agent/v1/things/mine")).text()).toBe("mine");
    const posted = await at("/api/agent/v1/things/x", { method: "POST", body: "hello" });
    // Read from the Node request through the edge's reader; the Request carries no stream.
    expect(await posted.json()).toMatchObject({ body: "hello", own: "none" });
  });

  it("leaves to Next what it would normalise, a catch-all's paths, HEAD, OPTIONS and other APIs", async () => {
    for (const [pathname, method] of [
      ["/api/agent/v1/things/abc/", "GET"],
      ["/api/agent/v1//things/abc", "GET"],
      ["/api/agent/v1/things/../things/abc", "GET"],
      ["/api/agent/v1/things/%E0%A4%A", "GET"],
      ["/api/agent/v1/unknown", "GET"],
      ["/api/agent/v1/things/abc", "HEAD"],
      ["/api/agent/v1/things/abc", "OPTIONS"],
      ["/api/agent/v1/things/abc", "PUT"], // not exported by the route file: Next's 405
      ["/api/other", "GET"],
    ] as const)
      expect([pathname, method, await rawStatus(method, pathname)]).toEqual([
        pathname,
        method,
        299,
      ]);
  });

  it("answers a handler that throws with the envelope's internal_error", async () => {
    const answer = await at("/api/agent/v1/things/abc", { method: "DELETE" });
    expect(answer.status).toBe(500);
    expect((await answer.json()).error.code).toBe("internal_error");
  });

  it("streams an answer as it comes and aborts the handler's signal when the client goes away", async () => {
    const controller = new AbortController();
    const answer = await at("/api/agent/v1/slow", { signal: controller.signal });
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("first;");
    controller.abort();
    await expect.poll(() => (globalThis as { slowAborted?: number }).slowAborted).toBe(1);
  });

  it("writes a long answer at a slow client's pace without piling up listeners on the response", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const received = await new Promise<number>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () =>
        socket.write("GET /api/agent/v1/large HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
      );
      let bytes = 0;
      // Reads in short bursts with pauses between, so the answer waits for the socket to drain
      // again and again.
      socket.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        socket.pause();
        setTimeout(() => socket.resume(), 2);
      });
      socket.on("close", () => resolve(bytes));
      socket.on("error", reject);
    });
    process.off("warning", onWarning);
    expect(received).toBeGreaterThan(128 * 64 * 1024);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });

  it("leaves everything to Next when not enabled (next dev, AGENT_API_VIA_NEXT=1)", async () => {
    // Decided once per process, at its first request: a second server sees the switch.
    enabled = false;
    const nextOnly = createServer(
      agentRoutesFirst(
        (_request: IncomingMessage, response: ServerResponse) => {
          response.writeHead(299);
          response.end();
        },
        { distDir: fakeBuild(), enabled: () => enabled },
      ),
    );
    await new Promise<void>((resolve) => nextOnly.listen(0, "127.0.0.1", resolve));
    const { port: other } = nextOnly.address() as { port: number };
    expect((await fetch(`http://127.0.0.1:${other}/api/agent/v1/things/abc`)).status).toBe(299);
    await new Promise((resolve) => nextOnly.close(resolve));
  });
});

describe("a request's body as the handler reads it", () => {
  type Reader = ReturnType<typeof bodyReader>;
  /** A server whose handler gets each request's body reader; `reached` resolves with the pair. */
  async function bodyServer() {
    let reached: (pair: [IncomingMessage, Reader]) => void = () => {};
    const next = new Promise<[IncomingMessage, Reader]>((resolve) => {
      reached = resolve;
    });
    const server = createServer((request) => reached([request, bodyReader(request)]));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    const chunk = (text: string) => socket.write(`${text.length.toString(16)}\r\n${text}\r\n`);
    const close = () => new Promise((resolve) => server.close(resolve));
    return { next, socket, chunk, close };
  }
  const decoded = (chunk: { value?: Uint8Array }) => Buffer.from(chunk.value ?? []).toString();

  it("arrives whole, chunk by chunk, with the socket paused while a chunk waits for its reader", async () => {
    const { next, socket, chunk, close } = await bodyServer();
    chunk("first;");
    const [request, reader] = await next;
    await expect.poll(() => request.isPaused()).toBe(true);
    chunk("second;");
    socket.write("0\r\n\r\n");
    let text = "";
    for (let read = await reader.read(); !read.done; read = await reader.read())
      text += decoded(read);
    expect(text).toBe("first;second;");
    socket.destroy();
    await close();
  });

  it("answers what it holds at once (readNow), and null while a read would wait", async () => {
    const { next, socket, chunk, close } = await bodyServer();
    chunk("held;");
    const [request, reader] = await next;
    // Paused by its reader once the chunk came, with no read waiting for it.
    await expect.poll(() => request.isPaused()).toBe(true);
    expect(decoded(reader.readNow() ?? {})).toBe("held;");
    expect(reader.readNow()).toBeNull();
    socket.write("0\r\n\r\n");
    // A chunked body's end is known at its 'end' event.
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(reader.readNow()).toEqual({ done: true, value: undefined });
    socket.destroy();
    await close();
  });

  it("gives a body received whole at once, its declared length, before its 'data' or 'end' event", async () => {
    let answered: (value: unknown[]) => void = () => {};
    const reads = new Promise<unknown[]>((resolve) => {
      answered = resolve;
    });
    const server = createServer(async (request) => {
      await null; // the parser has the body once its execute ends
      const reader = bodyReader(request);
      answered([reader.readNow(), reader.readNow()]);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nwhole");
    const [first, second] = await reads;
    expect(decoded(first as { value: Uint8Array })).toBe("whole");
    expect(second).toEqual({ done: true, value: undefined });
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it("fails the read when the client leaves before the body ends", async () => {
    const { next, socket, chunk, close } = await bodyServer();
    chunk("part;");
    const [, reader] = await next;
    expect(decoded(await reader.read())).toBe("part;");
    socket.destroy();
    await expect(reader.read()).rejects.toBeInstanceOf(Error);
    await close();
  });

  it("lets the handler answer after it cancels the read (a body over its limit is not read on)", async () => {
    const server = createServer(async (request, response) => {
      const reader = bodyReader(request);
      await reader.read();
      await reader.cancel();
      response.writeHead(413, { Connection: "close" }).end("too large");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    // An endless body: chunks keep coming until the answer does.
    const timer = setInterval(() => socket.write("5\r\nmore;\r\n"), 5);
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    await expect.poll(() => answer, { timeout: 5_000 }).toMatch(/^HTTP\/1\.1 413 /);
    clearInterval(timer);
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
});

/** A request line sent as is (fetch would normalise the path), the answer's status. */
function rawStatus(method: string, pathname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.end(`${method} ${pathname} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
    });
    socket.on("close", () => resolve(Number(text.split(" ")[1])));
    socket.on("error", reject);
  });
}
