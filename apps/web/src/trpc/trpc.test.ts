import {
  type CoreDeps,
  captureLogs,
  endConsoleSession,
  getAgentAction,
  newConsoleSessionId,
  proposeAction,
  sendAgentMessage,
  setGrant,
  setUserSuspended,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "~/auth/options";
import { liveStreams } from "~/server/live-streams";
import { handleTrpcRequest } from "./handler";
import type { AppRouter } from "./router";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** A console client for `user` (null: signed out), going through the real HTTP handler. */
function consoleAs(user: SessionUser | null, deps: CoreDeps = t.deps) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: "http://console.test/api/trpc",
        transformer: superjson,
        fetch: (url, init) =>
          handleTrpcRequest(new Request(url, init as RequestInit), async () => ({ deps, user })),
      }),
    ],
  });
}

/** The failure of a call, as the console's pages read it. */
async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => expect.unreachable("the call succeeded"),
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCClientError)) throw error;
  return { message: error.message, data: error.data as Record<string, unknown> };
}

async function signUp(name: string) {
  const email = `${name.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await consoleAs(null).auth.signUp.mutate({
    displayName: name,
    email,
    password: "correct horse battery",
  });
  return { email, session: consoleAs({ id: user.id, num: user.num, name }), user };
}

describe("auth", () => {
  it("signs a person up with a number, and refuses the same email twice with 409 conflict", async () => {
    const { email, user } = await signUp("Olive");
    expect(user).toMatchObject({ userType: "person", num: expect.stringMatching(/^\d{3}-/) });
    expect(user.num.startsWith("800-")).toBe(false);
    const again = await failure(
      consoleAs(null).auth.signUp.mutate({
        displayName: "Olive",
        email,
        password: "correct horse battery",
      }),
    );
    expect(again.data).toMatchObject({ httpStatus: 409, code: "conflict" });
  });

  it("answers field issues for a bad sign-up like the REST API does", async () => {
    const bad = await failure(
      consoleAs(null).auth.signUp.mutate({ displayName: "", email: "nope", password: "short" }),
    );
    expect(bad.message).toBe("The request failed validation");
    expect(bad.data).toMatchObject({ httpStatus: 400, code: "validation_error" });
    expect(bad.data.issues).toEqual([
      { path: "displayName", message: "must be 1-50 characters" },
      { path: "email", message: "must be an email address" },
      { path: "password", message: "must be at least 8 characters" },
    ]);
  });

  it("refuses a suspended person's session with 403 account_suspended until unsuspended", async () => {
    const { session, user } = await signUp("Sully");
    await setUserSuspended(t.deps, user.id, true);
    const refused = await failure(session.agents.list.query());
    expect(refused.data).toMatchObject({ httpStatus: 403, code: "account_suspended" });
    await setUserSuspended(t.deps, user.id, false);
    expect(await session.agents.list.query()).toEqual([]);
  });

  it("refuses signed-out calls to protected procedures with 401 unauthorized", async () => {
    const refused = await failure(consoleAs(null).agents.list.query());
    expect(refused.data).toMatchObject({ httpStatus: 401, code: "unauthorized" });
  });
});

describe("agents, tokens and pause", () => {
  it("creates an agent, mints a token shown once, pauses, resumes and revokes", async () => {
    const { session, user } = await signUp("Owner");
    const agent = await session.agents.create.mutate({
      displayName: "Concierge",
      requestedScopes: ["messages:write", "messages:read"],
      requestPrivacy: "everyone",
    });
    expect(agent).toMatchObject({ ownerId: user.id, num: expect.stringMatching(/^800-/) });
    expect(agent.requestedScopes).toEqual(["messages:read", "messages:write"]);
    expect((await session.agents.list.query()).map((a) => a.id)).toEqual([agent.id]);

    const minted = await session.tokens.mint.mutate({ agentId: agent.id });
    expect(minted.token).toMatch(/^sbat_/);
    const [listed] = await session.tokens.list.query({ agentId: agent.id });
    expect(listed).toMatchObject({ id: minted.info.id, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(minted.token);

    await session.agents.pause.mutate({ agentId: agent.id });
    expect((await session.agents.get.query({ agentId: agent.id })).agent.paused).toMatchObject({
      reason: "owner",
    });
    await session.agents.resume.mutate({ agentId: agent.id });
    expect((await session.agents.get.query({ agentId: agent.id })).agent.paused).toBeNull();

    await session.tokens.revoke.mutate({ agentId: agent.id, tokenId: minted.info.id });
    const [revoked] = await session.tokens.list.query({ agentId: agent.id });
    expect(revoked?.revokedAt).not.toBeNull();
  });

  it("answers 404 for another owner's agent on every agent procedure, changing nothing", async () => {
    const owner = await signUp("Alice");
    const other = await signUp("Mallory");
    const agent = await owner.session.agents.create.mutate({
      displayName: "Private",
      requestedScopes: [],
      requestPrivacy: "nobody",
    });
    const agentId = agent.id;
    const { info } = await owner.session.tokens.mint.mutate({ agentId });
    const attempts = [
      () => other.session.agents.get.query({ agentId }),
      () => other.session.agents.update.mutate({ agentId, change: { displayName: "Mine now" } }),
      () => other.session.agents.pause.mutate({ agentId }),
      () => other.session.agents.resume.mutate({ agentId }),
      () => other.session.tokens.list.query({ agentId }),
      () => other.session.tokens.mint.mutate({ agentId }),
      () => other.session.tokens.revoke.mutate({ agentId, tokenId: info.id }),
    ];
    for (const attempt of attempts)
      expect((await failure(attempt())).data).toMatchObject({ httpStatus: 404, code: "not_found" });

    const after = await owner.session.agents.get.query({ agentId });
    expect(after.agent).toMatchObject({ displayName: "Private", paused: null });
    expect((await owner.session.tokens.list.query({ agentId }))[0]?.revokedAt).toBeNull();
    expect(await other.session.agents.list.query()).toEqual([]);
  });

  it("puts the profile's field issues under change.<field>", async () => {
    const { session } = await signUp("Editor");
    const agent = await session.agents.create.mutate({
      displayName: "Editable",
      requestedScopes: [],
      requestPrivacy: "everyone",
    });
    const bad = await failure(
      session.agents.update.mutate({
        agentId: agent.id,
        change: { avatarUrl: "http://insecure.example.com/a.png", bio: "x".repeat(501) },
      }),
    );
    expect(bad.data).toMatchObject({ httpStatus: 400, code: "validation_error" });
    expect(bad.data.issues).toEqual(
      expect.arrayContaining([
        { path: "change.avatarUrl", message: expect.stringContaining("https") },
        { path: "change.bio", message: "must be at most 500 characters" },
      ]),
    );
    const saved = await session.agents.update.mutate({
      agentId: agent.id,
      change: { displayName: "Edited", avatarUrl: "https://cdn.example.com/a.png" },
    });
    expect(saved).toMatchObject({
      displayName: "Edited",
      avatarUrl: "https://cdn.example.com/a.png",
    });
  });

  it("answers a core refusal with its code and message (a token expiring in the past)", async () => {
    const { session } = await signUp("Clock");
    const agent = await session.agents.create.mutate({
      displayName: "Timed",
      requestedScopes: [],
      requestPrivacy: "everyone",
    });
    const past = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const refused = await failure(
      session.tokens.mint.mutate({ agentId: agent.id, expiresAt: past }),
    );
    expect(refused).toMatchObject({
      message: "expiry must be in the future",
      data: { httpStatus: 400, code: "validation_error" },
    });
  });
});

describe("developer keys and self chat", () => {
  it("creates a key shown once, lists it, revokes only the owner's own", async () => {
    const owner = await signUp("Dev");
    const other = await signUp("Eve");
    const created = await owner.session.developerKeys.create.mutate({
      scopes: ["self-chat:write"],
    });
    expect(created.key).toMatch(/^sbdk_/);
    expect(await owner.session.developerKeys.list.query()).toEqual([
      expect.objectContaining({
        id: created.info.id,
        scopes: ["self-chat:write"],
        revokedAt: null,
      }),
    ]);
    expect(await other.session.developerKeys.list.query()).toEqual([]);
    const foreign = await failure(
      other.session.developerKeys.revoke.mutate({ keyId: created.info.id }),
    );
    expect(foreign.data).toMatchObject({ httpStatus: 404, code: "not_found" });
    await owner.session.developerKeys.revoke.mutate({ keyId: created.info.id });
    const [revoked] = await owner.session.developerKeys.list.query();
    expect(revoked?.revokedAt).not.toBeNull();
    expect(await owner.session.selfChat.list.query()).toEqual([]);
  });
});

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

describe("errors", () => {
  it("answers an unknown procedure with 404 not_found", async () => {
    const client = consoleAs(null) as unknown as {
      nope: { list: { query(): Promise<unknown> } };
    };
    expect((await failure(client.nope.list.query())).data).toMatchObject({
      httpStatus: 404,
      code: "not_found",
    });
  });

  it("answers an unexpected failure with 500 internal_error, logging it and leaking nothing", async () => {
    const lines: string[] = [];
    const restore = captureLogs(lines);
    const broken = new Proxy(t.deps, {
      get(target, key) {
        if (key === "db") throw new Error("connection to 10.0.0.7 refused at /srv/secret.ts:42");
        return Reflect.get(target, key);
      },
    });
    const user = { id: "usr_x", num: "123-456-789", name: "X" };
    const failed = await failure(consoleAs(user, broken).agents.list.query()).finally(restore);
    expect(failed).toEqual({
      message: "Something went wrong on our side",
      data: { httpStatus: 500, code: "internal_error" },
    });
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: "unexpected error",
        procedure: "agents.list",
        err: expect.stringMatching(/^Error: connection to 10\.0\.0\.7/),
      }),
    );
  });
});

describe("owner dashboards and the webhook page", () => {
  it("answers an agent's history, delivery and test only to its owner", async () => {
    const owner = await signUp("Otto");
    const other = await signUp("Nosy");
    const agent = await owner.session.agents.create.mutate({
      displayName: "Charted",
      requestedScopes: ["messages:read"],
      requestPrivacy: "everyone",
    });
    const history = await owner.session.agents.history.query({ agentId: agent.id, days: 7 });
    expect(history.days).toHaveLength(7);
    expect((await owner.session.agents.list.query())[0]).toMatchObject({
      id: agent.id,
      contacts: 0,
      lastActivityAt: null,
    });
    for (const call of [
      () => other.session.agents.history.query({ agentId: agent.id, days: 7 }),
      () => other.session.webhooks.sendTest.mutate({ agentId: agent.id }),
      () => other.session.webhooks.delivery.query({ agentId: agent.id, eventId: "evt_x" }),
      () => other.session.webhooks.retry.mutate({ agentId: agent.id, eventId: "evt_x" }),
    ])
      expect((await failure(call())).data).toMatchObject({ httpStatus: 404, code: "not_found" });
    // The owner without a webhook is told to set one first.
    expect(
      (await failure(owner.session.webhooks.sendTest.mutate({ agentId: agent.id }))).message,
    ).toBe("This agent has no webhook; set its URL first");
  });
});

describe("requests from other origins", () => {
  /** A console client whose requests carry `headers`, as a browser page would send them. */
  const from = (headers: Record<string, string>, user: SessionUser | null = null) =>
    createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: "http://console.test/api/trpc",
          transformer: superjson,
          headers: { host: "console.test", ...headers },
          fetch: (url, init) =>
            handleTrpcRequest(new Request(url, init as RequestInit), async () => ({
              deps: t.deps,
              user,
            })),
        }),
      ],
    });
  const signUpInput = () => ({
    displayName: "Mallory",
    email: `m-${Math.random().toString(36).slice(2)}@example.com`,
    password: "correct horse battery",
  });

  it("refuses a mutation another origin's page sends with 403 forbidden, before it runs", async () => {
    const crossOrigin: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "http://console.test:8080" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of crossOrigin) {
      const input = signUpInput();
      const refused = await failure(from(headers).auth.signUp.mutate(input));
      expect(refused.data).toMatchObject({ httpStatus: 403, code: "forbidden" });
      expect(refused.message).toMatch(/not accepted/);
      // Nothing happened: the same sign-up from the console itself goes through.
      await expect(
        from({ origin: "http://console.test" }).auth.signUp.mutate(input),
      ).resolves.toMatchObject({ userType: "person" });
    }
    await expect(
      from({ "sec-fetch-site": "same-origin" }).auth.signUp.mutate(signUpInput()),
    ).resolves.toMatchObject({ userType: "person" });
  });

  it("refuses another origin's subscription to the live view", async () => {
    const { user } = await signUp("Sub");
    const session = { id: user.id, num: user.num, name: "Sub" };
    const subscribe = (origin: string) =>
      handleTrpcRequest(
        new Request("http://console.test/api/trpc/live.changes", {
          headers: { host: "console.test", origin, accept: "text/event-stream" },
        }),
        async () => ({ deps: t.deps, user: session }),
      );
    const refused = await subscribe("https://evil.example");
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('"code":"forbidden"');
    const allowed = await subscribe("http://console.test");
    expect(allowed.status).toBe(200);
    await allowed.body?.cancel();
  });
});

describe("request bodies", () => {
  it("stops reading a chunked body at the cap and answers 413 payload_too_large", async () => {
    const { user } = await signUp("Bulky");
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
    });
    const response = await handleTrpcRequest(
      new Request("http://console.test/api/trpc/chats.send?batch=1", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit),
      async () => ({ deps: t.deps, user: { id: user.id, num: user.num, name: "Bulky" } }),
    );
    expect(response.status).toBe(413);
    const [answer] = await response.json();
    expect(answer.error.json).toMatchObject({
      code: -32013,
      data: { httpStatus: 413, code: "payload_too_large" },
    });
    expect(pulled).toBeLessThanOrEqual(18);
  });
});

describe("text that cannot be stored", () => {
  it("refuses NUL and lone surrogates in any procedure's input with 400 and the path", async () => {
    const { session } = await signUp("Nully");
    const refused = await failure(
      session.chats.send.mutate({ chat: "cnv_x", message: { type: "text", content: "a\u0000b" } }),
    );
    expect(refused.data).toMatchObject({
      httpStatus: 400,
      code: "validation_error",
      issues: [{ path: "message.content", message: "must not contain NUL (\\u0000) characters" }],
    });
    const query = await failure(session.chats.consentCard.query({ agent: "\uD800" }));
    expect(query.data).toMatchObject({
      httpStatus: 400,
      issues: [{ path: "agent", message: "must not contain unpaired UTF-16 surrogates" }],
    });
  });
});

describe("signed-out sessions", () => {
  it("answers 401 for a session that was signed out, while the person's other sessions work", async () => {
    const { user } = await signUp("Sig");
    const [ended, other] = [newConsoleSessionId(), newConsoleSessionId()];
    const as = (sessionId: string) =>
      consoleAs({ id: user.id, num: user.num, name: "Sig", sessionId });
    await as(ended).auth.me.query();
    await endConsoleSession(t.deps, {
      userId: user.id,
      sessionId: ended,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    expect((await failure(as(ended).auth.me.query())).data).toMatchObject({
      httpStatus: 401,
      code: "unauthorized",
    });
    expect((await as(other).auth.me.query()).id).toBe(user.id);
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
