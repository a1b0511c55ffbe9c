import { createServer, request, Server } from "node:http";
import { connect } from "node:net";
import { ApiError, errorStatus } from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: plain JavaScript, loaded before Next by `node --import`.
import { edgeErrors, guardServer, isApiPath, KEEP_ALIVE_MS } from "../../http-edge.mjs";

let port = 0;
const server = guardServer(
  createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end('{"ok":true}');
  }),
);
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** Raw bytes in, the whole answer (status line, headers, body) out. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
  });
}

function parsed(answer: string) {
  const [head = "", body = ""] = answer.split("\r\n\r\n");
  return {
    status: Number(head.split(" ")[1]),
    head,
    error: ApiError.parse(JSON.parse(body)).error,
  };
}

describe("the web process's HTTP edge", () => {
  it("uses codes the contract registers, with their statuses", () => {
    for (const { status, code } of Object.values(edgeErrors) as { status: number; code: string }[])
      expect(errorStatus[code as keyof typeof errorStatus]).toBe(status);
  });

  it("answers a method Next does not route with 405 in the envelope, and routes the rest", async () => {
    for (const method of ["TRACE", "PROPFIND", "MKCOL"]) {
      const { status, head, error } = parsed(
        await exchange(
          `${method} /api/agent/v1/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ),
      );
      expect(status).toBe(405);
      expect(error.code).toBe("method_not_allowed");
      expect(head).toMatch(/Allow: GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE/);
    }
    const routed = await exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(routed).toMatch(/^HTTP\/1.1 200 /);
  });

  it("passes what it does not answer to the prototype's emit as it is at that moment", async () => {
    // The web app wraps Server.prototype.emit later (raw-requests.ts, from instrumentation): a
    // guard that captured the emit of its creation time would skip that wrapper.
    const original = Server.prototype.emit;
    let seen = 0;
    Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
      if (event === "request") seen++;
      return Reflect.apply(original, this, [event, ...args]) as boolean;
    } as Server["emit"];
    try {
      const routed = await exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      expect(routed).toMatch(/^HTTP\/1.1 200 /);
      expect(seen).toBe(1);
    } finally {
      Server.prototype.emit = original;
    }
  });

  it("answers unreadable requests and oversized headers in the envelope", async () => {
    const broken = parsed(await exchange("NOT A REQUEST\r\n\r\n"));
    expect([broken.status, broken.error.code]).toEqual([400, "malformed_request"]);
    const framing = parsed(
      await exchange(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      ),
    );
    expect(framing.error.code).toBe("malformed_request");
    const huge = parsed(
      await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`),
    );
    expect([huge.status, huge.error.code]).toEqual([431, "headers_too_large"]);
  });

  it("refuses a body to a page before reading it: the answer comes while the body is unsent", async () => {
    // Only the head is sent; a server that read the body first would wait for 60 MB forever.
    const head = (method: string, path: string, framing: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () =>
          socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n`),
        );
        const chunks: Buffer[] = [];
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
        socket.on("error", reject);
      });
    const post = parsed(await head("POST", "/signin", "Content-Length: 60000000"));
    expect([post.status, post.error.code]).toEqual([405, "method_not_allowed"]);
    expect(post.head).toMatch(/Allow: GET, HEAD, OPTIONS/);
    expect(post.head).toMatch(/Connection: close/i);
    const chunked = parsed(await head("PUT", "/chats", "Transfer-Encoding: chunked"));
    expect(chunked.status).toBe(405);
    const get = parsed(await head("GET", "/chats", "Content-Length: 60000000"));
    expect([get.status, get.error.code]).toEqual([413, "payload_too_large"]);
    // Dot segments do not make a page an API path.
    const dotted = parsed(await head("POST", "/api/../signin", "Content-Length: 10"));
    expect(dotted.status).toBe(405);
  });

  it("lets bodies through to API routes and bodiless requests through to pages", async () => {
    const api = await exchange(
      "POST /api/agent/v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    expect(api).toMatch(/^HTTP\/1.1 200 /);
    const page = await exchange(
      "GET /chats HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    expect(page).toMatch(/^HTTP\/1.1 200 /);
    const paths = ["/api", "/api/trpc/x", "//api//trpc?x=//", "/apis", "/", "/api/../signin"];
    expect(paths.map(isApiPath)).toEqual([true, true, true, false, false, false]);
  });

  it("keeps an idle kept-alive connection open past Node's 5 s, so a client's reuse is not reset", async () => {
    expect(KEEP_ALIVE_MS).toBeGreaterThan(60_000);
    const socket = connect(port, "127.0.0.1");
    const ask = () =>
      new Promise<string>((resolve, reject) => {
        socket.once("data", (chunk) => resolve(chunk.toString("utf8")));
        socket.once("error", reject);
        socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
      });
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    let closedAt = 0;
    socket.on("close", () => {
      closedAt = Date.now();
    });
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    expect(closedAt).toBe(0);
    expect(await ask()).toMatch(/^HTTP\/1\.1 200 /);
    socket.destroy();
  }, 15_000);

  it("keeps serving after a client resets mid-request", async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write("GET / HTTP/1.1\r\nHost: x\r\n");
        socket.resetAndDestroy();
        resolve();
      });
    });
    const answer = await new Promise<number>((resolve, reject) =>
      request({ port, host: "127.0.0.1", path: "/" }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on("error", reject)
        .end(),
    );
    expect(answer).toBe(200);
  });
});
