import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { AgentEvent } from "@switchboard/contract";
import { afterEach, expect, it } from "vitest";
import { Switchboard } from "./index";

/**
 * The stream against a real WebSocket server (the real `ws` client on the other side) that
 * answers the upgrade, the hello and a replay in one write, as a fast service on loopback does:
 * the client reads them in one chunk, so the events arrive before `await connect()` returns.
 */
const servers: Server[] = [];
const sockets: Duplex[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((r) => server.close(r))));
});

/** One unmasked server-to-client text frame (payloads under 64 KiB). */
function textFrame(value: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(value));
  const header =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}

const event = (seq: number): AgentEvent =>
  ({
    id: `evt_${seq}`,
    seq,
    type: "contact.added",
    createdAt: new Date(0).toISOString(),
    payload: { conversationId: "cnv_1", user: { id: "usr_1" }, scopes: [] },
  }) as unknown as AgentEvent;

/** A stream endpoint that, on each upgrade, sends hello at `helloSeq` and then `replay`. */
async function replayingServer(helloSeq: number, replay: AgentEvent[]): Promise<string> {
  const server = createServer();
  servers.push(server);
  server.on("upgrade", (request, socket) => {
    sockets.push(socket);
    // The client's close frame (opcode 8) is answered with ours, so close() need not time out.
    socket.on("data", (chunk: Buffer) => {
      if (((chunk[0] ?? 0) & 0x0f) === 8) socket.end(Buffer.from([0x88, 0]));
    });
    const accept = createHash("sha1")
      .update(`${request.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(
      Buffer.concat([
        Buffer.from(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
        ),
        textFrame({ type: "hello", seq: helloSeq }),
        ...replay.map((replayed) => textFrame({ type: "event", event: replayed })),
      ]),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return `ws://127.0.0.1:${address.port}`;
}

const connectTo = (wsUrl: string, afterSeq = 0) =>
  new Switchboard({ token: "sbat_test", baseUrl: "http://127.0.0.1:1/api", wsUrl }).connect({
    afterSeq,
    reconnect: false,
    pingIntervalMs: 0,
  });

it("keeps the events replayed right after hello for a listener added after connect", async () => {
  const stream = await connectTo(await replayingServer(3, [event(1), event(2), event(3)]));
  const seen: number[] = [];
  stream.on("event", (received) => seen.push(received.seq));
  await expect.poll(() => seen).toEqual([1, 2, 3]);
  expect(stream.seq).toBe(3);
  await stream.close();
});

it("hands them to events() too, even once the stream has ended", async () => {
  const stream = await connectTo(await replayingServer(2, [event(1), event(2)]));
  await stream.close();
  const seen: number[] = [];
  for await (const received of stream.events()) seen.push(received.seq);
  expect(seen).toEqual([1, 2]);
});

it("gives the early events to the first listener only, and later ones as they come", async () => {
  const stream = await connectTo(await replayingServer(1, [event(1)]));
  const first: number[] = [];
  const second: number[] = [];
  const off = stream.on("event", (received) => first.push(received.seq));
  await expect.poll(() => first).toEqual([1]);
  off();
  stream.on("event", (received) => second.push(received.seq));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(second).toEqual([]);
  await stream.close();
});
