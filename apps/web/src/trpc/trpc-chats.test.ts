import {
  type CoreDeps,
  getAgentAction,
  proposeAction,
  sendAgentMessage,
  setGrant,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "~/auth/options";
import { liveStreams } from "~/server/live-streams";
import { handleTrpcRequest } from "./handler";
import { consoleClient, failure, signUpThroughConsole } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const consoleAs = (user: SessionUser | null, deps: CoreDeps = t.deps) => consoleClient(deps, user);

const signUp = (name: string) => signUpThroughConsole(t.deps, name);

describe("chats", () => {
  /** Reads server-sent events of the live subscription straight from the handler. */
  async function openLive(user: SessionUser, signal: AbortSignal) {
    const response = await handleTrpcRequest(
      new Request("http://console.test/api/trpc/live.changes", { signal }),
      async () => ({ deps: t.deps, user }),
    );
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    /** Resolves with the next data event (pings are comments and are skipped). */
    return async function nextData(): Promise<string> {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        if (end >= 0) {
          const event = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = event.split("\n").find((line) => line.startsWith("data:"));
          if (data && !event.includes("event: connected")) return data;
          continue;
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error("the stream ended");
        buffered += decoder.decode(chunk.value, { stream: true });
      }
    };
  }

  it("adds an agent through its consent card and wakes the person's live view on its reply", async () => {
    const owner = await signUp("Owner");
    const agent = await owner.session.agents.create.mutate({
      displayName: "Live Bot",
      requestedScopes: ["messages:read", "messages:write"],
      requestPrivacy: "everyone",
    });
    const person = await signUp("Pia");
    const card = await person.session.chats.consentCard.query({ agent: agent.num });
    expect(card).toMatchObject({ mayAdd: true, isContact: false });
    const added = await person.session.chats.add.mutate({
      agent: agent.id,
      scopes: ["messages:read"],
    });
    expect(added.grantedScopes).toEqual(["messages:read"]);

    const controller = new AbortController();
    const nextData = await openLive(
      { id: person.user.id, num: person.user.num, name: "Pia" },
      controller.signal,
    );
    try {
      // The first wake-up names nothing: (re)read everything.
      expect(await nextData()).toContain('"changes":null');
      await setGrant(t.deps, person.user.id, agent.id, ["messages:read", "messages:write"]);
      expect(await nextData()).toContain('"changes":["chats"]');
      await sendAgentMessage(
        t.deps,
        { agentId: agent.id },
        { conversationId: added.conversationId, type: "text", content: "hello Pia" },
      );
      // A message names its chat, so the tab re-reads that chat and the chat list only.
      expect(await nextData()).toContain(`"changes":["chat:${added.conversationId}"]`);
      const page = await person.session.chats.page.query({ chat: added.conversationId });
      expect(page.messages.map((m) => m.content)).toEqual(["hello Pia"]);
      expect(page.conversation.unreadCount).toBe(1);
    } finally {
      controller.abort();
    }
    // Another person sees no such chat.
    const other = await signUp("Oscar");
    const foreign = await failure(other.session.chats.page.query({ chat: added.conversationId }));
    expect(foreign.data).toMatchObject({ httpStatus: 404, code: "not_found" });
  });

  it("keeps at most 10 live streams per session and 20 per person, closing the oldest first", async () => {
    const { user } = await signUp("Tabs");
    const stop = new AbortController();
    /** A stream of the session, and whether it has ended (read to its end in the background). */
    const open = async (sessionId: string) => {
      const response = await handleTrpcRequest(
        new Request("http://console.test/api/trpc/live.changes", { signal: stop.signal }),
        async () => ({ deps: t.deps, user: { id: user.id, num: user.num, name: "T", sessionId } }),
      );
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const stream = { ended: false };
      void (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done);
        stream.ended = true;
      })();
      await settle(30); // the subscription starts (and is counted) as its stream is read
      return stream;
    };
    const settle = (ms = 200) => new Promise((resolve) => setTimeout(resolve, ms));
    const openMany = async (n: number, sessionId: string) => {
      const streams = [];
      for (let i = 0; i < n; i++) streams.push(await open(sessionId));
      return streams;
    };
    try {
      const first = await openMany(10, "s1");
      await settle();
      expect(first.filter((s) => s.ended)).toHaveLength(0);
      expect(liveStreams.count(user.id)).toBe(10);
      // The 11th of the session closes its oldest stream, and only that one.
      await open("s1");
      await settle();
      expect(first.map((s) => s.ended)).toEqual([true, ...Array(9).fill(false)]);
      // Another session of the same person fills the person's 20; a third session's stream
      // closes the person's oldest (the first session's), not one of its own.
      const second = await openMany(10, "s2");
      await open("s3");
      await settle();
      expect(first.filter((s) => s.ended)).toHaveLength(2);
      expect(first[1]?.ended).toBe(true);
      expect(second.filter((s) => s.ended)).toHaveLength(0);
      expect(liveStreams.count(user.id)).toBe(20);
    } finally {
      stop.abort();
    }
    await settle();
    expect(liveStreams.count(user.id)).toBe(0);
  });
});

describe("rejecting a card with a reason", () => {
  it("keeps the person's why for the agent, bounded at 500 characters, never with an approval", async () => {
    const owner = await signUp("Owner");
    const agent = await owner.session.agents.create.mutate({
      displayName: "Asking Bot",
      requestedScopes: ["messages:read", "messages:write"],
      requestPrivacy: "everyone",
    });
    const person = await signUp("Rae");
    const { conversationId: chat } = await person.session.chats.add.mutate({
      agent: agent.id,
      scopes: ["messages:read", "messages:write"],
    });
    const { action } = await proposeAction(
      t.deps,
      { agentId: agent.id },
      { conversationId: chat, kind: "book.table", title: "Book a table" },
    );
    const decide = (input: Record<string, unknown>) =>
      person.session.chats.decide.mutate({ chat, actionId: action.id, ...input } as never);

    const long = await failure(decide({ approve: false, reason: "x".repeat(501) }));
    expect(long.data).toMatchObject({
      httpStatus: 400,
      code: "validation_error",
      issues: [{ path: "reason", message: "must be at most 500 characters" }],
    });
    const choice = await failure(decide({ approve: false, choice: "someday" }));
    expect(choice.data).toMatchObject({ code: "validation_error", issues: [{ path: "choice" }] });
    const approving = await failure(decide({ approve: true, reason: "why not" }));
    expect(approving).toMatchObject({
      message: "A reason goes only with a rejection",
      data: { httpStatus: 400, issues: [{ path: "reason" }] },
    });

    const rejected = await decide({ approve: false, reason: "Not on Fridays", choice: "never" });
    expect(rejected.rejection).toEqual({ reason: "Not on Fridays", choice: "never" });
    expect((await getAgentAction(t.deps, agent.id, action.id)).rejection).toEqual(
      rejected.rejection,
    );
  });
});

describe("the chat list and replies", () => {
  it("searches chats by the agent's name, counts waiting cards, and sends a reply with replyToId", async () => {
    const owner = await signUp("Owner");
    const make = (displayName: string) =>
      owner.session.agents.create.mutate({
        displayName,
        requestedScopes: ["messages:read", "messages:write"],
        requestPrivacy: "everyone",
      });
    const [kite, lamp] = [await make("Kite Helper"), await make("Lamp Helper")];
    const person = await signUp("Sol");
    const add = (agent: { id: string }) =>
      person.session.chats.add.mutate({
        agent: agent.id,
        scopes: ["messages:read", "messages:write"],
      });
    const { conversationId: chat } = await add(kite);
    await add(lamp);
    await proposeAction(
      t.deps,
      { agentId: kite.id },
      { conversationId: chat, kind: "book.kite", title: "Book a kite" },
    );

    const found = await person.session.chats.list.query({ search: "kite" });
    expect(found.chats.map((row) => [row.agent.displayName, row.pendingCards])).toEqual([
      ["Kite Helper", 1],
    ]);
    expect((await person.session.chats.list.query({})).chats).toHaveLength(2);
    const long = await failure(person.session.chats.list.query({ search: "k".repeat(101) }));
    expect(long.data).toMatchObject({
      httpStatus: 400,
      code: "validation_error",
      issues: [{ path: "search" }],
    });

    const { message: asked } = await sendAgentMessage(
      t.deps,
      { agentId: kite.id },
      { conversationId: chat, type: "text", content: "Red or blue?" },
    );
    const { message } = await person.session.chats.send.mutate({
      chat,
      message: { type: "text", content: "Blue", replyToId: asked.id },
    });
    expect(message.replyToId).toBe(asked.id);
    const elsewhere = await failure(
      person.session.chats.send.mutate({
        chat,
        message: { type: "text", content: "Blue", replyToId: "msg_not_here" },
      }),
    );
    expect(elsewhere.data).toMatchObject({
      code: "validation_error",
      issues: [{ path: "replyToId" }],
    });
  });
});

describe("inbox", () => {
  it("sends, lists with unread counts, opens and marks read; strangers see nothing", async () => {
    const ann = await signUp("Ann");
    const ben = await signUp("Ben");
    const cat = await signUp("Cat");
    const sent = await ann.session.inbox.send.mutate({
      to: [ben.user.num],
      subject: "Lunch?",
      content: "Noon at the usual place?",
    });
    const {
      threads: [listed],
    } = await ben.session.inbox.list.query();
    expect(listed).toMatchObject({
      id: sent.threadId,
      subject: "Lunch?",
      isGroup: false,
      unreadCount: 1,
      participants: [{ id: ann.user.id }],
      lastMessage: { content: "Noon at the usual place?" },
    });
    const page = await ben.session.inbox.thread.query({ threadId: sent.threadId });
    expect(page.messages.map((m) => m.content)).toEqual(["Noon at the usual place?"]);
    await ben.session.inbox.markRead.mutate({ threadId: sent.threadId });
    expect((await ben.session.inbox.list.query()).threads[0]?.unreadCount).toBe(0);
    await ben.session.inbox.send.mutate({ threadId: sent.threadId, content: "Yes!" });
    expect((await ann.session.inbox.list.query()).threads[0]?.unreadCount).toBe(1);

    expect(await cat.session.inbox.list.query()).toEqual({ threads: [], hasMore: false });
    // Each call is made only when it is awaited, so no refusal goes unhandled meanwhile.
    for (const call of [
      () => cat.session.inbox.thread.query({ threadId: sent.threadId }),
      () => cat.session.inbox.markRead.mutate({ threadId: sent.threadId }),
      () => cat.session.inbox.send.mutate({ threadId: sent.threadId, content: "me too" }),
    ])
      expect((await failure(call())).data).toMatchObject({ httpStatus: 404, code: "not_found" });
    const bad = await failure(
      ann.session.inbox.send.mutate({ to: [ben.user.num], content: "no subject" }),
    );
    expect(bad.data).toMatchObject({ code: "validation_error" });
    expect(bad.data.issues).toEqual([{ path: "subject", message: "a new thread needs a subject" }]);
    expect((await failure(consoleAs(null).inbox.list.query())).data).toMatchObject({
      code: "unauthorized",
    });
  });
});
