import type { AgentEvent } from "@switchboard/contract";
import {
  createAgent,
  createDeps,
  createUser,
  mintAgentToken,
  pauseAgent,
  revokeAgentToken,
  setUserSuspended,
} from "@switchboard/core";
import {
  appendEvents,
  awayFromMinuteBoundary,
  createTestDeps,
  eventTag,
  taggedEvent,
} from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { closeServers, connect, newStreamAgent, startWorker } from "./test-client";

let t: Awaited<ReturnType<typeof createTestDeps>>;

let worker: { url: string };
beforeAll(async () => {
  t = await createTestDeps({ env: { STREAM_MAX_CONNECTIONS: "2", STREAM_FRAMES_PER_MIN: "6" } });
  worker = await startWorker(t.deps);
});
afterAll(async () => {
  await closeServers();
  await t.close();
});

const newAgent = () => newStreamAgent(t.deps);

const emit = (agentId: string, n: number) =>
  t.deps.db.transaction((tx) => appendEvents(tx, new Date(), [taggedEvent(agentId, n)]));

/** The frame an event appended by `emit(…, n)` arrives as (appends return no payload). */
const eventFrame = (appended: { id: string } | undefined, n: number) => ({
  type: "event",
  event: {
    ...appended,
    payload: expect.objectContaining({
      user: expect.objectContaining({ displayName: `tag:${n}` }),
    }),
  },
});

const refusal = (promise: Promise<void>) =>
  promise.then(
    () => null,
    (e) => e as { status: number; body: { error: { code: string } } },
  );

describe("upgrade", () => {
  it("refuses bad credentials with the REST status and envelope", async () => {
    const { agentId, token } = await newAgent();
    expect(await refusal(connect(worker.url).opened)).toMatchObject({
      status: 401,
      body: { error: { code: "unauthorized" } },
    });
    expect(await refusal(connect(`${worker.url}?token=sbat_nope`).opened)).toMatchObject({
      status: 401,
    });
    expect(await refusal(connect(`${worker.url}?afterSeq=x&token=${token}`).opened)).toMatchObject({
      status: 400,
      body: { error: { code: "validation_error" } },
    });
    await pauseAgent(t.deps, agentId);
    expect(await refusal(connect(`${worker.url}?token=${token}`).opened)).toMatchObject({
      status: 403,
      body: { error: { code: "agent_paused" } },
    });
  });

  it("accepts the token as a bearer header too", async () => {
    const { token } = await newAgent();
    const client = connect(worker.url, { headers: { Authorization: `Bearer agent:${token}` } });
    await client.opened;
    expect((await client.until(1))[0]).toMatchObject({ type: "hello" });
    client.ws.close();
  });
});

describe("events", () => {
  it("says hello with the current seq, then sends live events", async () => {
    const { agentId, token } = await newAgent();
    const [first] = await emit(agentId, 0);
    const client = connect(`${worker.url}?token=${token}`);
    await client.opened;
    await client.until(1);
    expect(client.frames[0]).toEqual({ type: "hello", seq: first!.seq });
    const [live] = await emit(agentId, 1);
    await client.until(2);
    expect(client.frames[1]).toEqual(eventFrame(live, 1));
    client.ws.close();
  });

  it("sends hello first even when a wake-up arrives before it, and no event from before", async () => {
    const { agentId, token } = await newAgent();
    for (let n = 0; n < 3; n++) await emit(agentId, n);
    // An event committed between subscribing and reading the cursor wakes the pump at once.
    const notifier = t.deps.notifier;
    const eager = await startWorker({
      ...t.deps,
      notifier: Object.assign(Object.create(notifier), {
        subscribe: async (...[topic, wake]: Parameters<typeof notifier.subscribe>) => {
          const unsubscribe = await notifier.subscribe(topic, wake);
          wake();
          return unsubscribe;
        },
      }),
    });
    const client = connect(`${eager.url}?token=${token}`);
    await client.opened;
    const [live] = await emit(agentId, 3);
    await client.until(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(client.frames).toEqual([{ type: "hello", seq: live!.seq - 1 }, eventFrame(live, 3)]);
    client.ws.close();
  });

  it("resumes after afterSeq with no gap and no duplicate while events keep committing", async () => {
    const { agentId, token } = await newAgent();
    for (let n = 0; n < 30; n++) await emit(agentId, n);
    const writing = (async () => {
      for (let n = 30; n < 90; n++) await emit(agentId, n);
    })();
    const client = connect(`${worker.url}?token=${token}&afterSeq=0`);
    await client.opened;
    await writing;
    await client.until(91);
    const seqs = client.frames.slice(1).map((f) => (f as { event: { seq: number } }).event.seq);
    const ns = client.frames.slice(1).map((f) => eventTag((f as { event: AgentEvent }).event));
    expect(ns).toEqual(Array.from({ length: 90 }, (_, n) => String(n)));
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    client.ws.close();
  });
});

describe("limits and re-authorization", () => {
  it("caps connections per agent across two worker processes", async () => {
    const { token } = await newAgent();
    const other = createDeps(t.config, { clock: t.clock });
    const second = await startWorker(other.deps);
    try {
      const a = connect(`${worker.url}?token=${token}`);
      const b = connect(`${second.url}?token=${token}`);
      await Promise.all([a.opened, b.opened]);
      expect(await refusal(connect(`${second.url}?token=${token}`).opened)).toMatchObject({
        status: 429,
        body: { error: { code: "rate_limited" } },
      });
      a.ws.close();
      await a.closed;
      await new Promise((r) => setTimeout(r, 100));
      const c = connect(`${worker.url}?token=${token}`);
      await c.opened;
      b.ws.close();
      c.ws.close();
    } finally {
      await other.close();
    }
  });

  it("answers ping with pong, and closes with 1008 and the code once paused or revoked", async () => {
    const paused = await newAgent();
    const client = connect(`${worker.url}?token=${paused.token}`);
    await client.opened;
    client.send({ type: "ping" });
    await client.until(2);
    expect(client.frames[1]).toEqual({ type: "pong" });
    await pauseAgent(t.deps, paused.agentId);
    client.send({ type: "ping" });
    expect(await client.closed).toEqual({ code: 1008, reason: "agent_paused" });

    const revoked = await newAgent();
    const other = connect(`${worker.url}?token=${revoked.token}`);
    await other.opened;
    await revokeAgentToken(t.deps, { token: revoked.token });
    other.send({ type: "ping" });
    expect(await other.closed).toEqual({ code: 1008, reason: "token_revoked" });
  });

  it("closes within a second of a pause, a revoke or the owner's suspension, with no frame sent", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Controlled" });
    const cases = [
      { act: () => pauseAgent(t.deps, agent.id), reason: "agent_paused" },
      {
        act: (token: string) => revokeAgentToken(t.deps, { token }),
        reason: "token_revoked",
      },
      { act: () => setUserSuspended(t.deps, owner.id, true), reason: "unauthorized" },
    ];
    for (const { act, reason } of cases) {
      await t.deps.db
        .update(schema.agents)
        .set({ pausedAt: null, pauseReason: null })
        .where(eq(schema.agents.id, agent.id));
      const { token } = await mintAgentToken(t.deps, agent.id);
      const client = connect(`${worker.url}?token=${token}`);
      await client.opened;
      await client.until(1); // hello: subscribed
      const acted = performance.now();
      await act(token);
      // The heartbeat is 30 s away: only the control NOTIFY can close it this soon.
      expect(await client.closed).toEqual({ code: 1008, reason });
      expect(performance.now() - acted).toBeLessThan(1000);
    }
    await setUserSuspended(t.deps, owner.id, false);
  });

  it("answers malformed, unknown and excess frames with error frames, and stays open", async () => {
    const { token } = await newAgent();
    await awayFromMinuteBoundary(15_000); // all seven frames in one minute's window
    const client = connect(`${worker.url}?token=${token}`);
    await client.opened;
    client.send("not json");
    client.send({ type: "nope" });
    client.send({ type: "typing", conversationId: "cnv_x" });
    client.send({ type: "reply.start", streamId: "s1", conversationId: "c", to: "123-456-789" });
    client.send({ type: "ping" });
    client.send({ type: "ping" });
    client.send({ type: "ping" }); // the 7th frame this minute
    await client.until(8);
    const [, notJson, unknown, typing, reply, pong1, pong2, excess] = client.frames as {
      type: string;
      error?: { code: string; message: string };
    }[];
    expect(notJson?.error?.code).toBe("validation_error");
    expect(unknown?.error?.message).toMatch(/Unknown frame type "nope"/);
    expect(typing?.error).toMatchObject({ code: "validation_error", issues: [{ path: "typing" }] });
    expect(reply?.error?.code).toBe("validation_error");
    expect([pong1?.type, pong2?.type]).toEqual(["pong", "pong"]);
    expect(excess?.error?.code).toBe("rate_limited");
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.ws.close();
  });
});
