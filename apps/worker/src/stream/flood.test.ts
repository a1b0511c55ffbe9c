import { awayFromMinuteBoundary, createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { closeServers, connect, newStreamAgent, startWorker } from "./test-client";

/**
 * A client that floods tiny frames (each answered by a small frame) while reading nothing must
 * cost the worker a bounded buffer and end up closed — never one queued answer per frame. The
 * heartbeat is the default 30 s here, so it cannot be what closes them.
 */

const BUFFER = 64 * 1024;

let t: Awaited<ReturnType<typeof createTestDeps>>;
let tight: Awaited<ReturnType<typeof createTestDeps>>;
let worker: Awaited<ReturnType<typeof startWorker>>;
let tightWorker: Awaited<ReturnType<typeof startWorker>>;
beforeAll(async () => {
  // Rate limit far away: only the send buffer's bound can stop the flood.
  t = await createTestDeps({
    env: { STREAM_FRAMES_PER_MIN: "10000000", STREAM_SEND_BUFFER_BYTES: String(BUFFER) },
  });
  worker = await startWorker(t.deps);
  tight = await createTestDeps({ env: { STREAM_FRAMES_PER_MIN: "20" } });
  tightWorker = await startWorker(tight.deps);
});
afterAll(async () => {
  await closeServers();
  await t?.close();
  await tight?.close();
});

const stopReading = (ws: WebSocket) =>
  (ws as unknown as { _socket: { pause(): void } })._socket.pause();

/** Sends `frame` in bursts until the server drops the connection (or `max` frames went). */
async function flood(
  client: ReturnType<typeof connect>,
  server: WebSocket,
  clients: Set<WebSocket>,
  frame: string,
  max: number,
) {
  // What the server holds unsent for this socket, looked at after every frame it sends.
  let most = 0;
  const send = server.send.bind(server) as (data: unknown) => void;
  server.send = ((data: unknown) => {
    send(data);
    most = Math.max(most, server.bufferedAmount);
  }) as typeof server.send;
  let sent = 0;
  try {
    while (clients.has(server) && sent < max) {
      for (let i = 0; i < 2000 && client.ws.readyState === client.ws.OPEN; i++)
        client.ws.send(frame);
      sent += 2000;
      most = Math.max(most, server.bufferedAmount);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const deadline = Date.now() + 5000;
    while (clients.has(server) && Date.now() < deadline) {
      most = Math.max(most, server.bufferedAmount);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    server.send = send as typeof server.send;
  }
  return { most, sent, dropped: !clients.has(server) };
}

describe("a client that floods and does not read", () => {
  it("is held to a bounded send buffer and dropped, however many answers it asks for", async () => {
    const { token } = await newStreamAgent(t.deps);
    const client = connect(`${worker.url}?token=${token}`);
    await client.opened;
    await client.until(1); // hello
    stopReading(client.ws);
    const [server] = worker.wss.clients;
    if (!server) throw new Error("no server-side connection");
    // Each "x" earns a ~100-byte validation_error: an amplifier if answers were queued freely.
    const { most, dropped } = await flood(client, server, worker.wss.clients, "x", 400_000);
    expect(dropped).toBe(true);
    // Two buffers (events, then answers) and one frame more at most.
    expect(most).toBeLessThanOrEqual(2 * BUFFER + 1024);
    client.ws.terminate();
  }, 60_000);

  it("past the frame limit is answered once, then closed with 1008 rate_limited", async () => {
    await awayFromMinuteBoundary(15_000);
    const { token } = await newStreamAgent(tight.deps);
    const client = connect(`${tightWorker.url}?token=${token}`);
    await client.opened;
    await client.until(1);
    for (let i = 0; i < 1000; i++) client.send({ type: "nope" });
    expect(await client.closed).toEqual({ code: 1008, reason: "rate_limited" });
    const codes = client.frames.slice(1).map((f) => (f.error as { code: string }).code);
    expect(codes).toEqual([...Array(20).fill("validation_error"), "rate_limited"]);
  });

  it("past the frame limit, one that does not read is cut off within a second or so", async () => {
    await awayFromMinuteBoundary(15_000);
    const { token } = await newStreamAgent(tight.deps);
    const client = connect(`${tightWorker.url}?token=${token}`);
    await client.opened;
    await client.until(1);
    stopReading(client.ws);
    const [server] = [...tightWorker.wss.clients].filter((ws) => ws.readyState === ws.OPEN);
    if (!server) throw new Error("no server-side connection");
    const started = performance.now();
    const { dropped } = await flood(client, server, tightWorker.wss.clients, "{}", 100_000);
    expect(dropped).toBe(true);
    expect(performance.now() - started).toBeLessThan(5000);
    client.ws.terminate();
  });
});
