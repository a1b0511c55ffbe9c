import { appendEvents, createTestDeps, taggedEvent } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServers, connect, newStreamAgent, startWorker } from "./test-client";

const BUFFER = 64 * 1024;
const EVENT_BYTES = 10_000;

let t: Awaited<ReturnType<typeof createTestDeps>>;
let worker: Awaited<ReturnType<typeof startWorker>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: { STREAM_HEARTBEAT_S: "1", STREAM_SEND_BUFFER_BYTES: String(BUFFER) },
  });
  worker = await startWorker(t.deps);
});
afterAll(async () => {
  await closeServers();
  await t.close();
});

const newAgent = () => newStreamAgent(t.deps);

describe("stream flow", () => {
  it("stops pumping for a client that stops reading, and then drops it", async () => {
    const { agentId, token } = await newAgent();
    // 20 MB of events waiting: far more than the kernel's socket buffers hold.
    const filler = "x".repeat(EVENT_BYTES);
    for (let batch = 0; batch < 20; batch++)
      await t.deps.db.transaction((tx) =>
        appendEvents(
          tx,
          new Date(),
          Array.from({ length: 100 }, (_, i) =>
            taggedEvent(agentId, `${batch * 100 + i}:${filler}`),
          ),
        ),
      );
    const client = connect(`${worker.url}?token=${token}&afterSeq=0`);
    await client.opened;
    // The client reads nothing more: its socket stops taking bytes (and answering pings).
    (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const [server] = worker.wss.clients;
    if (!server) throw new Error("no server-side connection");
    let most = 0;
    while (worker.wss.clients.has(server)) {
      most = Math.max(most, server.bufferedAmount);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // What the server held for it never passed the mark by more than one event.
    expect(most).toBeLessThanOrEqual(BUFFER + EVENT_BYTES + 1000);
    // And the reader that never read was dropped (it answered no ping).
    expect(worker.wss.clients.has(server)).toBe(false);
  }, 30_000);

  it("delivers an event whose wake-up was lost, at the next heartbeat", async () => {
    const { agentId, token } = await newAgent();
    const client = connect(`${worker.url}?token=${token}`);
    await client.opened;
    await client.until(1); // hello
    // One event the usual way: once it arrives, the pump has run and is idle.
    await t.deps.db.transaction((tx) =>
      appendEvents(tx, new Date(), [taggedEvent(agentId, "woken")]),
    );
    await client.until(2);
    // Written without NOTIFY, as if the wake-up had been lost.
    await t.deps.db
      .insert(schema.events)
      .values({ id: "evt_lost", ...taggedEvent(agentId, "lost"), ts: new Date() });
    const frames = await client.until(3, 10_000);
    expect(frames[2]).toMatchObject({ type: "event", event: { id: "evt_lost" } });
    client.ws.close();
  });
});
