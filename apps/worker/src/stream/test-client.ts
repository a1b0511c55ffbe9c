import type { AddressInfo } from "node:net";
import { type CoreDeps, createAgent, createUser, mintAgentToken } from "@switchboard/core";
import { WebSocket } from "ws";
import { createWorkerServer } from "../health";
import { attachStream, STREAM_PATH } from "./server";

/** Test helpers: a real worker stream server on a free port, and a real `ws` client. */

export const servers: { url: string; close(): Promise<void> }[] = [];

/** Starts a stream server over `deps`; `closeServers` stops every one started. */
export async function startWorker(deps: CoreDeps) {
  const server = createWorkerServer(deps);
  const wss = attachStream(server, deps);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}${STREAM_PATH}`;
  const handle = {
    url,
    /** The server side of the connections, to look at what the server holds for each. */
    wss,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  servers.push(handle);
  return handle;
}

/** A new agent (with its owner) and a token for it. */
export async function newStreamAgent(deps: CoreDeps) {
  const owner = await createUser(deps, {});
  const agent = await createAgent(deps, { ownerId: owner.id, displayName: "Streamer" });
  const { token } = await mintAgentToken(deps, agent.id);
  return { agentId: agent.id, token };
}

export async function closeServers(): Promise<void> {
  for (const server of servers.splice(0)) await server.close();
}

/** A client that queues every frame it receives and can wait for the next ones. */
export function connect(url: string, options: { headers?: Record<string, string> } = {}) {
  const ws = new WebSocket(url, options);
  const frames: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data) => {
    frames.push(JSON.parse(data.toString()));
    for (const wake of waiters.splice(0)) wake();
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () =>
        reject(
          Object.assign(new Error("refused"), { status: res.statusCode, body: JSON.parse(body) }),
        ),
      );
    });
    ws.once("error", reject);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  async function until(count: number, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (frames.length < count) {
      if (Date.now() > deadline)
        throw new Error(`only ${frames.length} of ${count} frames arrived`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return frames;
  }
  return {
    ws,
    frames,
    opened,
    closed,
    until,
    send: (frame: unknown) => ws.send(typeof frame === "string" ? frame : JSON.stringify(frame)),
  };
}
