import type { ChildProcess } from "node:child_process";
import { connect as tcpConnect } from "node:net";
import type { AgentEvent } from "@switchboard/contract";
import { createAgent, createUser, mintAgentToken } from "@switchboard/core";
import { appendEvents, createTestDeps, eventTag, taggedEvent } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startWorkerProcess } from "../test-process";
import { STREAM_PATH } from "./server";
import { connect } from "./test-client";

// The real worker process (src/main.ts) over a real database, reached over real TCP.
let t: Awaited<ReturnType<typeof createTestDeps>>;
let worker: ChildProcess;
let port: number;
beforeAll(async () => {
  t = await createTestDeps();
  ({ child: worker, port } = await startWorkerProcess({
    DATABASE_URL: t.config.DATABASE_URL as string,
  }));
});
afterAll(async () => {
  worker.kill("SIGKILL");
  await t.close();
});

/** Sends a valid upgrade request, then resets the connection (RST) after `delayMs`. */
function resetMidUpgrade(token: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1", () => {
      socket.write(
        [
          `GET ${STREAM_PATH}?token=${token} HTTP/1.1`,
          `Host: 127.0.0.1:${port}`,
          "Upgrade: websocket",
          "Connection: Upgrade",
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
          "Sec-WebSocket-Version: 13",
          "",
          "",
        ].join("\r\n"),
      );
      setTimeout(() => socket.resetAndDestroy(), delayMs);
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve());
  });
}

it("survives 100 connections reset mid-upgrade, then streams normally in the same process", async () => {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Resetter" });
  const { token } = await mintAgentToken(t.deps, agent.id);
  const pid = worker.pid;

  // At once, and at every point of the authentication and lease queries that follow.
  for (let i = 0; i < 100; i += 10)
    await Promise.all(
      Array.from({ length: 10 }, (_, j) => resetMidUpgrade(token, (i + j) % 3 === 0 ? 0 : j * 2)),
    );

  expect([worker.exitCode, worker.signalCode, worker.pid]).toEqual([null, null, pid]);
  // No stream lease was left behind by a reset: every connection the agent may hold opens.
  // (The worker may still be finishing the last resets' queries: a refusal is retried for a
  // while, far less than the 90 s a leaked lease would last.)
  const clients = [];
  const deadline = Date.now() + 15_000;
  while (clients.length < t.config.STREAM_MAX_CONNECTIONS) {
    const client = connect(`ws://127.0.0.1:${port}${STREAM_PATH}?token=${token}`);
    const refused = await client.opened.then(
      () => null,
      (error: { status?: number }) => error,
    );
    if (!refused) clients.push(client);
    else if (refused.status !== 429 || Date.now() > deadline) throw refused;
    else await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const [client] = clients;
  expect((await client?.until(1))?.[0]).toMatchObject({ type: "hello" });
  await t.deps.db.transaction((tx) => appendEvents(tx, new Date(), [taggedEvent(agent.id, 1)]));
  const frame = (await client?.until(2))?.[1] as { type: string; event: AgentEvent };
  expect([frame.type, eventTag(frame.event)]).toEqual(["event", "1"]);
  for (const c of clients) c.ws.close();
  expect([worker.exitCode, worker.pid]).toEqual([null, pid]);
}, 120_000);
