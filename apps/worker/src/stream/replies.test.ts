import {
  addContact,
  blockAgent,
  cleanupExpired,
  createAgent,
  createUser,
  listAgentMessages,
  listPersonMessages,
  mintAgentToken,
  pauseAgent,
  removeContact,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeServers, connect, startWorker } from "./test-client";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let worker: { url: string };
beforeAll(async () => {
  t = await createTestDeps({
    env: {
      STREAM_MAX_OPEN_REPLIES: "2",
      STREAM_DELTAS_PER_SEC: "5",
      STREAM_MAX_REPLY_CHARS: "30",
      STREAM_REPLY_IDLE_S: "1",
      LIMIT_PER_RECIPIENT_PER_MIN: "4",
      STREAM_HEARTBEAT_S: "1",
      STREAM_MAX_CONNECTIONS: "1",
    },
  });
  worker = await startWorker(t.deps);
});
afterAll(async () => {
  await closeServers();
  await t.close();
});

// Frames are checked by shape in each test.
// biome-ignore lint/suspicious/noExplicitAny: a received frame, read field by field
type Frame = Record<string, any>;

/** An agent a person added (granting `grant`), connected to the stream. */
async function streaming(
  grant: ("messages:read" | "messages:write")[] = ["messages:read", "messages:write"],
) {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Streamer",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, grant);
  const { token } = await mintAgentToken(t.deps, agent.id);
  const client = connect(`${worker.url}?token=${token}`);
  await client.opened;
  await client.until(1); // hello
  client.frames.length = 0;
  /** The next frame of `type` (waiting for it), taken off the queue. */
  const next = async (type: string) => {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const index = client.frames.findIndex((f) => f.type === type);
      if (index >= 0) return client.frames.splice(index, 1)[0] as Frame;
      await client.until(client.frames.length + 1, 500).catch(() => {});
    }
    throw new Error(`no ${type} frame`);
  };
  return { client, next, agent, person, conversationId };
}

const partial = async (personId: string, conversationId: string) =>
  (await listPersonMessages(t.deps, personId, conversationId)).openReplies.map((r) => r.text);

describe("streamed replies", () => {
  it("start, deltas visible to the person, end as one stored message with the started id", async () => {
    const { client, next, agent, person, conversationId } = await streaming();
    client.send({ type: "reply.start", streamId: "a", conversationId });
    const started = await next("reply.started");
    expect(started).toMatchObject({ streamId: "a", conversationId });
    client.send({ type: "reply.delta", streamId: "a", text: "Hello " });
    client.send({ type: "reply.delta", streamId: "a", text: "there" });
    client.send({ type: "typing", conversationId, typing: true });
    await expect.poll(() => partial(person.id, conversationId)).toEqual(["Hello there"]);
    client.send({ type: "reply.end", streamId: "a" });
    const ended = await next("reply.ended");
    expect(ended.message).toMatchObject({
      id: started.messageId,
      type: "text",
      content: "Hello there",
      senderId: agent.id,
    });
    expect(await partial(person.id, conversationId)).toEqual([]);
    const history = await listAgentMessages(t.deps, agent.id, conversationId, { limit: 10 });
    expect(history.messages.map((m) => m.id)).toEqual([started.messageId]);
    expect(client.frames.filter((f) => f.type === "error")).toEqual([]);
  });

  it("abort discards the partial text; unknown and duplicate streamIds are refused", async () => {
    const { client, next, agent, person, conversationId } = await streaming();
    client.send({ type: "reply.start", streamId: "b", conversationId });
    await next("reply.started");
    client.send({ type: "reply.start", streamId: "b", conversationId });
    expect((await next("error")).error.code).toBe("conflict");
    client.send({ type: "reply.delta", streamId: "b", text: "never mind" });
    await expect.poll(() => partial(person.id, conversationId)).toEqual(["never mind"]);
    client.send({ type: "reply.abort", streamId: "b" });
    await expect.poll(() => partial(person.id, conversationId)).toEqual([]);
    client.send({ type: "reply.delta", streamId: "b", text: "late" });
    expect(await next("error")).toMatchObject({ streamId: "b", error: { code: "not_found" } });
    const history = await listAgentMessages(t.deps, agent.id, conversationId, { limit: 10 });
    expect(history.messages).toEqual([]);
  });

  it("limits open replies, deltas per second and characters per reply", async () => {
    const { client, next, conversationId } = await streaming();
    for (const streamId of ["c1", "c2", "c3"])
      client.send({ type: "reply.start", streamId, conversationId });
    await next("reply.started");
    await next("reply.started");
    expect(await next("error")).toMatchObject({
      streamId: "c3",
      error: { code: "too_many_open_replies" },
    });
    // A burst over STREAM_DELTAS_PER_SEC (5 here): the excess is refused, not added.
    for (let i = 0; i < 12; i++) client.send({ type: "reply.delta", streamId: "c1", text: "x" });
    client.send({ type: "ping" }); // frames are handled in order: its pong ends the burst
    await next("pong");
    const refused = client.frames.filter((f) => f.type === "error");
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const frame of refused)
      expect(frame).toMatchObject({
        streamId: "c1",
        error: { code: "rate_limited", retryAfterSeconds: 1 },
      });
    client.frames.length = 0;
    const accepted = 12 - refused.length;
    // Both go idle (STREAM_REPLY_IDLE_S is 1 here): the one with text is stored, the empty one not.
    expect(await next("reply.ended")).toMatchObject({
      streamId: "c1",
      message: { content: "x".repeat(accepted) },
    });
    expect(await next("error")).toMatchObject({
      streamId: "c2",
      error: { code: "validation_error", message: expect.stringContaining("empty") },
    });
    await new Promise((r) => setTimeout(r, 1000)); // a fresh second for deltas
    client.send({ type: "reply.start", streamId: "c4", conversationId });
    await next("reply.started");
    client.send({ type: "reply.delta", streamId: "c4", text: "a".repeat(30) });
    client.send({ type: "reply.delta", streamId: "c4", text: "b" });
    expect(await next("error")).toMatchObject({
      streamId: "c4",
      error: { code: "reply_too_long" },
    });
    client.send({ type: "reply.end", streamId: "c4" });
    expect((await next("reply.ended")).message.content).toBe("a".repeat(30));
  });

  it("follows the send rules: scope, block, per-recipient limit, pause closes with 1008", async () => {
    const readOnly = await streaming(["messages:read"]);
    readOnly.client.send({
      type: "reply.start",
      streamId: "d",
      conversationId: readOnly.conversationId,
    });
    expect(await readOnly.next("error")).toMatchObject({
      streamId: "d",
      error: { code: "scope_not_granted", scope: "messages:write" },
    });

    const { client, next, agent, person, conversationId } = await streaming();
    // LIMIT_PER_RECIPIENT_PER_MIN is 4 here; each start counts as one message.
    for (let i = 0; i < 5; i++) {
      client.send({ type: "reply.start", streamId: `e${i}`, conversationId });
      client.send({ type: "reply.abort", streamId: `e${i}` });
    }
    const refused = await next("error");
    expect(refused).toMatchObject({ streamId: "e4", error: { code: "conversation_rate_limited" } });

    await blockAgent(t.deps, person.id, agent.id);
    const other = await streaming();
    await blockAgent(t.deps, other.person.id, other.agent.id);
    other.client.send({ type: "reply.start", streamId: "f", to: other.person.num });
    expect((await other.next("error")).error.code).toBe("blocked");

    await pauseAgent(t.deps, other.agent.id);
    other.client.send({ type: "reply.start", streamId: "g", to: other.person.num });
    expect(await other.client.closed).toEqual({ code: 1008, reason: "agent_paused" });
  });

  it("a block or removal ends the open reply at once (no frame needed), unstored; the stream stays", async () => {
    const cases = [
      { code: "blocked", act: blockAgent },
      { code: "not_a_contact", act: removeContact },
    ] as const;
    for (const { code, act } of cases) {
      const { client, next, agent, person, conversationId } = await streaming();
      client.send({ type: "reply.start", streamId: "j", conversationId });
      await next("reply.started");
      client.send({ type: "reply.delta", streamId: "j", text: "before " });
      await expect.poll(() => partial(person.id, conversationId)).toEqual(["before "]);
      const acted = performance.now();
      await act(t.deps, person.id, agent.id);
      // Through the control NOTIFY, not at the next delta or heartbeat.
      expect(await next("error")).toMatchObject({ streamId: "j", error: { code } });
      expect(performance.now() - acted).toBeLessThan(1000);
      expect(await partial(person.id, conversationId)).toEqual([]);
      client.send({ type: "reply.delta", streamId: "j", text: "after" });
      expect(await next("error")).toMatchObject({ streamId: "j", error: { code: "not_found" } });
      client.send({ type: "reply.end", streamId: "j" });
      expect(await next("error")).toMatchObject({ streamId: "j", error: { code: "not_found" } });
      client.send({ type: "ping" });
      await next("pong");
      const page = await listPersonMessages(t.deps, person.id, conversationId);
      expect(page.messages.map((m) => m.content)).not.toContain("before ");
      client.ws.close();
      await client.closed;
    }
  });

  it("a delta that fails to store ends its reply: the row goes, and the sweep never stores it", async () => {
    const { client, next, agent, person, conversationId } = await streaming();
    client.send({ type: "reply.start", streamId: "f", conversationId });
    const started = await next("reply.started");
    client.send({ type: "reply.delta", streamId: "f", text: "kept so far " });
    await expect.poll(() => partial(person.id, conversationId)).toEqual(["kept so far "]);
    // The database refuses this delta's update (as it refused a NUL before frames were checked).
    await t.deps.db.execute(sql`
      create or replace function h2_refuse_delta() returns trigger language plpgsql as $$
      begin
        if new.text like '%boom%' then raise exception 'refused by test'; end if;
        return new;
      end $$`);
    await t.deps.db.execute(sql`
      create trigger h2_refuse_delta before update on reply_streams
      for each row execute function h2_refuse_delta()`);
    try {
      client.send({ type: "reply.delta", streamId: "f", text: "boom" });
      expect(await next("error")).toMatchObject({
        streamId: "f",
        error: { code: "internal_error" },
      });
    } finally {
      await t.deps.db.execute(sql`drop trigger h2_refuse_delta on reply_streams`);
    }
    // Not forgotten with its row left behind: the reply is gone, for the agent and the person.
    expect(await partial(person.id, conversationId)).toEqual([]);
    client.send({ type: "reply.abort", streamId: "f" });
    expect(await next("error")).toMatchObject({ streamId: "f", error: { code: "not_found" } });
    t.clock.advance(3 * t.config.STREAM_REPLY_IDLE_S * 1000);
    await cleanupExpired(t.deps);
    const page = await listAgentMessages(t.deps, agent.id, conversationId, { limit: 10 });
    expect(page.messages.map((m) => m.id)).not.toContain(started.messageId);
    client.ws.close();
    await client.closed;
  });

  it("ends a reply idle for STREAM_REPLY_IDLE_S; a closed connection's reply is discarded", async () => {
    const { client, next, person, conversationId } = await streaming();
    client.send({ type: "reply.start", streamId: "h", conversationId });
    await next("reply.started");
    client.send({ type: "reply.delta", streamId: "h", text: "left hanging" });
    const ended = await next("reply.ended");
    expect(ended).toMatchObject({ streamId: "h", message: { content: "left hanging" } });

    client.send({ type: "reply.start", streamId: "i", conversationId });
    await next("reply.started");
    client.send({ type: "reply.delta", streamId: "i", text: "cut off" });
    await expect.poll(() => partial(person.id, conversationId)).toEqual(["cut off"]);
    client.ws.close();
    await expect.poll(() => partial(person.id, conversationId)).toEqual([]);
    const page = await listPersonMessages(t.deps, person.id, conversationId);
    expect(page.messages.map((m) => m.content)).toEqual(["left hanging"]);
  });
});

describe("heartbeats", () => {
  it("drop a connection that stops answering pings, which frees its slot", async () => {
    const { client, agent } = await streaming();
    const { token } = await mintAgentToken(t.deps, agent.id);
    // STREAM_MAX_CONNECTIONS is 1 here: a second connection is refused while the first lives.
    const second = connect(`${worker.url}?token=${token}`);
    await expect(second.opened).rejects.toMatchObject({ status: 429 });
    // The client goes silent (its socket stops reading, so no pong); the server drops it.
    (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await expect
      .poll(
        async () => {
          const retry = connect(`${worker.url}?token=${token}`);
          const ok = await retry.opened.then(
            () => true,
            () => false,
          );
          retry.ws.close();
          return ok;
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe(true);
  });
});
