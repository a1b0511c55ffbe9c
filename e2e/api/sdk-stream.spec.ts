import { createServer, type Socket, connect as tcpConnect } from "node:net";
import { pauseAgent, sendPersonMessage } from "@switchboard/core";
import { type AgentEvent, type AgentStream, Switchboard, SwitchboardError } from "@switchboard/sdk";
import { deps, newContact } from "../support/fixtures";
import { expect, test } from "../support/test";

/** The SDK's stream client against the running worker. */
const baseUrl = `http://localhost:${process.env.E2E_PORT}/api`;
const wsUrl = `ws://localhost:${process.env.E2E_WS_PORT}`;
const opened: AgentStream[] = [];
test.afterEach(async () => {
  await Promise.all(opened.splice(0).map((stream) => stream.close()));
});

async function connected(token: string, options: Parameters<Switchboard["connect"]>[0] = {}) {
  const client = new Switchboard({ token, baseUrl, wsUrl });
  const stream = await client.connect(options);
  opened.push(stream);
  const events: AgentEvent[] = [];
  stream.on("event", (event) => events.push(event));
  return { client, stream, events };
}

async function rejection(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SwitchboardError);
  return error as SwitchboardError;
}

test("typed events, a streamed reply stored as one message, abort, typing, refusals", async () => {
  const { token, agent, person, conversationId } = await newContact();
  const { client, stream, events } = await connected(token);
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "stream me" });
  await expect.poll(() => events.map((e) => e.type)).toEqual(["message.received"]);
  const [received] = events;
  if (received?.type !== "message.received") throw new Error("typed by its type");
  expect(received.payload.message?.content).toBe("stream me");
  expect(stream.seq).toBe(received.seq);

  stream.typing(conversationId, true);
  const reply = await stream.streamReply(conversationId);
  expect(reply.messageId).toMatch(/^msg_/);
  expect(reply.conversationId).toBe(conversationId);
  for (const word of ["Hello", ", ", "person"]) reply.write(word);
  const message = await reply.end();
  expect(message).toMatchObject({ id: reply.messageId, content: "Hello, person", type: "text" });
  expect(() => reply.write("late")).toThrow();

  const byNum = await stream.streamReply({ to: person.num });
  byNum.write("never stored");
  await byNum.abort();
  const { messages } = await client.listMessages({ conversationId });
  expect(messages.map((m) => m.content)).toEqual(["stream me", "Hello, person"]);

  const refused = await rejection(stream.streamReply({ to: "999-999-998" }));
  expect(refused).toMatchObject({ code: "not_found", streamId: expect.any(String) });
  const empty = await stream.streamReply(conversationId);
  expect(await rejection(empty.end())).toMatchObject({ code: "validation_error" });
});

test("many fast writes are paced into few deltas: nothing is dropped", async () => {
  test.setTimeout(60_000);
  const { token, conversationId } = await newContact();
  const { stream } = await connected(token, { deltaDelayMs: 20 });
  const errors: SwitchboardError[] = [];
  stream.on("error", (error) => errors.push(error));
  const reply = await stream.streamReply(conversationId);
  const words = Array.from({ length: 400 }, (_, i) => `w${i} `);
  for (const word of words) {
    reply.write(word);
    if (Number(word.slice(1, -1)) % 50 === 0) await new Promise((r) => setTimeout(r, 30));
  }
  expect((await reply.end()).content).toBe(words.join(""));
  expect(errors).toEqual([]);
});

/** A TCP proxy to the worker whose connections can be cut; it records each upgrade's request line. */
async function cuttableProxy() {
  const sockets = new Set<Socket>();
  const requests: string[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    const upstream = tcpConnect(Number(process.env.E2E_WS_PORT), "127.0.0.1");
    sockets.add(upstream);
    socket.once("data", (chunk) => requests.push(chunk.toString("latin1").split("\r\n")[0] ?? ""));
    socket.pipe(upstream).pipe(socket);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    requests,
    cut: () => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test("after a drop the stream reconnects after the last seq: nothing missed, nothing twice", async () => {
  test.setTimeout(60_000);
  const { token, agent, person } = await newContact();
  const proxy = await cuttableProxy();
  const client = new Switchboard({ token, baseUrl, wsUrl: proxy.wsUrl });
  const stream = await client.connect({ reconnectDelayMs: 200 });
  opened.push(stream);
  const events: AgentEvent[] = [];
  const opens: (number | null)[] = [];
  const closes: boolean[] = [];
  stream.on("event", (event) => events.push(event));
  stream.on("open", ({ resumedAfter }) => opens.push(resumedAfter));
  stream.on("close", ({ reconnecting }) => closes.push(reconnecting));

  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "before" });
  await expect.poll(() => events.length).toBe(1);
  const lastSeen = events[0]?.seq as number;
  proxy.cut();
  // Written while the connection is down.
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "during" });
  await expect.poll(() => opens.length, { timeout: 20_000 }).toBe(1);
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "after" });
  await expect.poll(() => events.length, { timeout: 20_000 }).toBe(3);
  expect(
    events.map((e) => (e.type === "message.received" ? e.payload.message?.content : e.type)),
  ).toEqual(["before", "during", "after"]);
  expect(new Set(events.map((e) => e.seq)).size).toBe(3);
  expect(opens).toEqual([lastSeen]);
  expect(closes).toEqual([true]);
  expect(proxy.requests[0]).not.toContain("afterSeq");
  expect(proxy.requests.at(-1)).toContain(`afterSeq=${lastSeen}`);
  await stream.close();
  await proxy.close();
});

test("connect(afterSeq) replays; a paused agent's stream ends with agent_paused; a bad token is refused", async () => {
  test.setTimeout(60_000);
  const { token, agent, person } = await newContact();
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "old" });
  const { stream, events } = await connected(token, { afterSeq: 0, pingIntervalMs: 500 });
  await expect.poll(() => events.map((e) => e.type)).toEqual(["contact.added", "message.received"]);

  const errors: string[] = [];
  const closes: boolean[] = [];
  stream.on("error", (error) => errors.push(error.code));
  stream.on("close", ({ reconnecting }) => closes.push(reconnecting));
  const iterator = stream.events();
  await pauseAgent(deps(), agent.id);
  // The next ping re-authorizes, and the worker closes with 1008 agent_paused.
  await expect.poll(() => errors, { timeout: 20_000 }).toEqual(["agent_paused"]);
  expect(closes).toEqual([false]);
  expect(stream.closed).toBe(true);
  expect(await iterator.next()).toEqual({ value: undefined, done: true });
  expect(await rejection(stream.streamReply({ to: person.num }))).toMatchObject({
    code: "connection_closed",
  });

  const refused = await rejection(
    new Switchboard({ token: "sbat_nope", baseUrl, wsUrl }).connect(),
  );
  expect(refused).toMatchObject({ code: "unauthorized", status: 401 });
});
