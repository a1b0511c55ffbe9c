import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { pinnedRequest } from "./pinned-request";

const policy = { allowInsecureHosts: ["127.0.0.1"] };
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/**
 * A receiver that counts the connections it accepts; `resetSecondRequest` makes it drop a
 * connection when a second request arrives on it, as a server that closed it while idle does.
 */
async function receiver({ resetSecondRequest = false } = {}) {
  const seen = { connections: 0, answered: 0 };
  const requestsOn = new WeakMap<object, number>();
  server = createServer((request, response) => {
    const count = (requestsOn.get(request.socket) ?? 0) + 1;
    requestsOn.set(request.socket, count);
    request.resume();
    request.on("end", () => {
      if (resetSecondRequest && count > 1) return request.socket.destroy();
      seen.answered += 1;
      response.end("ok");
    });
  });
  server.on("connection", () => {
    seen.connections += 1;
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  return { seen, url };
}

const post = (url: URL, reuseConnection: boolean) =>
  pinnedRequest(url, {
    method: "POST",
    body: "{}",
    timeoutMs: 5_000,
    policy,
    excerptBytes: 16,
    reuseConnection,
  });

describe("pinnedRequest", () => {
  it("keeps a connection for the next request when asked to", async () => {
    const { seen, url } = await receiver();
    for (let i = 0; i < 3; i++)
      expect(await post(url, true)).toMatchObject({ ok: true, status: 200 });
    expect(seen).toEqual({ connections: 1, answered: 3 });
  });

  it("opens a connection per request otherwise", async () => {
    const { seen, url } = await receiver();
    for (let i = 0; i < 3; i++)
      expect(await post(url, false)).toMatchObject({ ok: true, status: 200 });
    expect(seen).toEqual({ connections: 3, answered: 3 });
  });

  it("sends again on a new connection when a kept one was closed under it", async () => {
    const { seen, url } = await receiver({ resetSecondRequest: true });
    expect(await post(url, true)).toMatchObject({ ok: true, status: 200 });
    expect(await post(url, true)).toMatchObject({ ok: true, status: 200 });
    expect(seen).toEqual({ connections: 2, answered: 2 });
  });

  it("fails, without a second try, when a new connection is dropped", async () => {
    const { seen, url } = await receiver();
    server?.removeAllListeners("request");
    server?.on("request", (request) => request.socket.destroy());
    expect(await post(url, true)).toMatchObject({ ok: false, reason: "network" });
    expect(seen.connections).toBe(1);
  });
});
