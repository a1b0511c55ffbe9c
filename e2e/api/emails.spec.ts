import {
  AgentEmailsResponse,
  AgentEmailThreadResponse,
  AgentEvent,
  AgentReplyEmailResponse,
  type AgentScope,
  AgentSendEmailResponse,
} from "@switchboard/contract";
import {
  addContact,
  blockAgent,
  createUser,
  getAgentUsage,
  listPersonEmailThreads,
  pauseAgent,
  removeContact,
  resumeAgent,
  sendPersonEmail,
  sendPersonMessage,
  setGrant,
  setInitiation,
  setUserSuspended,
  unblockAgent,
} from "@switchboard/core";
import WebSocket from "ws";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { awayFromMinuteBoundary, expectError } from "../support/http";
import { expect, test } from "../support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";

const EMAIL: AgentScope[] = ["messages:read", "messages:write", "emails:read", "emails:write"];

/** An agent asking for email, and a person who added it with `grant`. */
async function emailContact(grant: AgentScope[] = EMAIL) {
  const setup = await newAgent({ scopes: EMAIL, name: "Mail Agent" });
  const person = await createUser(deps(), { displayName: "Robin" });
  const { conversationId } = await addContact(deps(), person.id, setup.agent.id, grant);
  return { ...setup, person, conversationId };
}

type Api = ReturnType<typeof agentApi>;
const emailEvents = async (api: Api, afterSeq = 0, wait = 0) => {
  const body = await (await api.get(`/updates?afterSeq=${afterSeq}&wait=${wait}`)).json();
  return (body.events as unknown[])
    .map((e) => AgentEvent.parse(e))
    .filter(
      (e): e is Extract<AgentEvent, { type: "email.received" }> => e.type === "email.received",
    );
};

test("a person emails the agent; it hears, lists, reads (marking read) and replies over HTTP", async ({
  request,
}) => {
  const { agent, auth, person } = await emailContact();
  const api = agentApi(request, auth);
  const sent = await sendPersonEmail(deps(), person.id, {
    to: [agent.num],
    subject: "Moving on Saturday",
    content: "Can you find me a van?",
  });

  const [event] = await emailEvents(api, 0, 5);
  expect(event?.payload).toEqual({
    threadId: sent.threadId,
    subject: "Moving on Saturday",
    from: person,
    email: sent.message,
  });

  const listed = await api.get("/emails");
  expect(listed.status()).toBe(200);
  const { threads } = AgentEmailsResponse.parse(await listed.json());
  expect(threads).toEqual([
    expect.objectContaining({
      id: sent.threadId,
      subject: "Moving on Saturday",
      participant: person,
      grantedScopes: EMAIL,
      unreadCount: 1,
      startedById: person.id,
      lastMessage: sent.message,
    }),
  ]);

  const opened = await api.get(`/emails/${sent.threadId}`);
  expect(opened.status()).toBe(200);
  const thread = AgentEmailThreadResponse.parse(await opened.json());
  expect(thread.thread.unreadCount).toBe(0);
  expect(thread.messages).toEqual([sent.message]);
  expect(
    AgentEmailsResponse.parse(await (await api.get("/emails")).json()).threads[0]?.unreadCount,
  ).toBe(0);

  const replied = await api.post(`/emails/${sent.threadId}/messages`, {
    content: "Found one: 9 am, 40 EUR.",
  });
  expect(replied.status()).toBe(201);
  const reply = AgentReplyEmailResponse.parse(await replied.json());
  expect(reply).toEqual({
    threadId: sent.threadId,
    message: expect.objectContaining({
      senderId: agent.id,
      senderNum: agent.num,
      content: "Found one: 9 am, 40 EUR.",
    }),
  });
  const {
    threads: [inbox],
  } = await listPersonEmailThreads(deps(), person.id);
  expect(inbox).toMatchObject({ id: sent.threadId, unreadCount: 1, lastMessage: reply.message });

  const started = await api.post("/emails", {
    to: person.num,
    subject: "Receipt",
    content: "Here is the receipt for the van.",
  });
  expect(started.status()).toBe(201);
  const created = AgentSendEmailResponse.parse(await started.json());
  expect(created.thread).toMatchObject({
    subject: "Receipt",
    startedById: agent.id,
    unreadCount: 0,
    lastMessage: created.message,
  });
  // Newest activity first.
  const ids = AgentEmailsResponse.parse(await (await api.get("/emails")).json()).threads.map(
    (t) => t.id,
  );
  expect(ids).toEqual([created.thread.id, sent.threadId]);
  expect((await getAgentUsage(deps(), agent.id)).usage.messages).toBe(2);
});

test("bad input answers validation_error with the field; wrong methods 405", async ({
  request,
}) => {
  const { auth, person } = await emailContact();
  const api = agentApi(request, auth);
  const cases: [Record<string, unknown>, string][] = [
    [{ to: person.num, content: "no subject" }, "subject"],
    [{ to: person.num, subject: "", content: "x" }, "subject"],
    [{ to: person.num, subject: "   ", content: "x" }, "subject"],
    [{ to: person.num, subject: "x".repeat(201), content: "x" }, "subject"],
    [{ to: person.num, subject: "two\nlines", content: "x" }, "subject"],
    [{ to: person.num, subject: "S", content: "" }, "content"],
    [{ to: person.num, subject: "S", content: "x".repeat(10_001) }, "content"],
    [{ to: "robin", subject: "S", content: "x" }, "to"],
    [{ to: person.num, subject: "S", content: "x", cc: "someone" }, ""],
  ];
  for (const [body, path] of cases) {
    const error = await expectError(await api.post("/emails", body), 400, "validation_error");
    expect(
      error.issues?.map((i) => i.path),
      JSON.stringify(body),
    ).toContain(path);
  }
  // The bounds themselves pass.
  const longest = await api.post("/emails", {
    to: person.num,
    subject: "s".repeat(200),
    content: "c".repeat(10_000),
  });
  expect(longest.status()).toBe(201);
  const { thread } = await longest.json();
  await expectError(
    await api.post(`/emails/${thread.id}/messages`, { content: "" }),
    400,
    "validation_error",
  );
  await expectError(
    await request.put("/api/agent/v1/emails", { headers: auth, data: {} }),
    405,
    "method_not_allowed",
  );
  await expectError(await api.delete(`/emails/${thread.id}`), 405, "method_not_allowed");
});

test("refusals: each code in order, counted; paused answers agent_paused", async ({ request }) => {
  const { agent, auth } = await newAgent({ scopes: EMAIL });
  const api = agentApi(request, auth);
  const person = await createUser(deps(), {});
  const send = () => api.post("/emails", { to: person.num, subject: "Hi", content: "Hello" });
  // A former contact: a block by someone who never added the agent reads as not_a_contact.
  await addContact(deps(), person.id, agent.id, []);
  await removeContact(deps(), person.id, agent.id);
  await setInitiation(deps(), person.id, agent.id, "reply_only");
  await blockAgent(deps(), person.id, agent.id);
  await setUserSuspended(deps(), person.id, true);
  await expectError(await send(), 403, "recipient_suspended");
  await setUserSuspended(deps(), person.id, false);
  await expectError(await send(), 403, "blocked");
  await unblockAgent(deps(), person.id, agent.id);
  await expectError(await send(), 403, "not_a_contact");
  await addContact(deps(), person.id, agent.id, ["emails:read"]);
  const scope = await expectError(await send(), 403, "scope_not_granted");
  expect(scope.scope).toBe("emails:write");
  await setGrant(deps(), person.id, agent.id, ["emails:read", "emails:write"]);
  await expectError(await send(), 403, "reply_window_closed");
  await expectError(
    await api.post("/emails", { to: "999-888-777", subject: "Hi", content: "x" }),
    404,
    "not_found",
  );

  // The person writes in a thread: the agent may answer there (and only there).
  const { threadId } = await sendPersonEmail(deps(), person.id, {
    to: [agent.num],
    subject: "A question",
    content: "Are you there?",
  });
  expect((await api.post(`/emails/${threadId}/messages`, { content: "Yes." })).status()).toBe(201);
  await expectError(await send(), 403, "reply_window_closed");
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "chat" });
  expect((await send()).status()).toBe(201);
  expect((await getAgentUsage(deps(), agent.id)).usage).toMatchObject({ messages: 2, refused: 5 });

  await pauseAgent(deps(), agent.id);
  await expectError(await send(), 403, "agent_paused");
  await expectError(await api.get("/emails"), 403, "agent_paused");
  await resumeAgent(deps(), agent.id);
  expect((await api.get("/emails")).status()).toBe(200);
});

test("threads the agent is not in are 404; group threads are 400 unsupported and never listed", async ({
  request,
}) => {
  const a = await emailContact();
  const b = await emailContact();
  const apiA = agentApi(request, a.auth);
  const apiB = agentApi(request, b.auth);
  const theirs = AgentSendEmailResponse.parse(
    await (
      await apiB.post("/emails", { to: b.person.num, subject: "B's secret", content: "for b" })
    ).json(),
  );
  for (const response of [
    await apiA.get(`/emails/${theirs.thread.id}`),
    await apiA.post(`/emails/${theirs.thread.id}/messages`, { content: "sneaky" }),
    await apiA.get("/emails/eth_doesnotexist"),
  ]) {
    const error = await expectError(response, 404, "not_found");
    expect(JSON.stringify(error)).not.toContain("secret");
  }
  expect(AgentEmailsResponse.parse(await (await apiA.get("/emails")).json()).threads).toEqual([]);

  const friend = await createUser(deps(), { displayName: "Friend" });
  const group = await sendPersonEmail(deps(), a.person.id, {
    to: [a.agent.num, friend.num],
    subject: "Picnic",
    content: "Sunday?",
  });
  // The agent cannot open or answer a group, so it is not told of one (decision 0039).
  expect(await emailEvents(apiA, 0, 0)).toEqual([]);
  await expectError(await apiA.get(`/emails/${group.threadId}`), 400, "unsupported");
  await expectError(
    await apiA.post(`/emails/${group.threadId}/messages`, { content: "I'm in" }),
    400,
    "unsupported",
  );
  expect(AgentEmailsResponse.parse(await (await apiA.get("/emails")).json()).threads).toEqual([]);
  await expectError(await apiB.get(`/emails/${group.threadId}`), 404, "not_found");
});

test("without emails:read: long-poll, webhook and WebSocket all carry email.received masked", async ({
  request,
}) => {
  const receiver = await startWebhookReceiver();
  const { received } = receiver;
  const { agent, auth, person, token } = await emailContact([
    "messages:read",
    "messages:write",
    "emails:write",
  ]);
  const api = agentApi(request, auth);
  try {
    const webhook = { url: receiver.url };
    expect(
      (await request.put("/api/agent/v1/webhook", { headers: auth, data: webhook })).ok(),
    ).toBe(true);
    // One thread the agent starts (its subject stays), one the person starts (masked).
    const mine = AgentSendEmailResponse.parse(
      await (
        await api.post("/emails", { to: person.num, subject: "Agent subject", content: "Hi" })
      ).json(),
    );
    await sendPersonEmail(deps(), person.id, {
      threadId: mine.thread.id,
      content: "secret reply 5150",
    });
    const theirs = await sendPersonEmail(deps(), person.id, {
      to: [agent.num],
      subject: "Secret subject 5150",
      content: "secret email 5150",
    });
    const expected = [
      { threadId: mine.thread.id, subject: "Agent subject" },
      { threadId: theirs.threadId, subject: null },
    ].map((shown) => ({
      ...shown,
      from: person,
      email: null,
      accessDenied: {
        scope: "emails:read",
        message: "Robin has not granted emails:read, so the content is withheld",
      },
    }));

    const polled = await emailEvents(api);
    expect(polled.map((e) => e.payload)).toEqual(expected);

    const ws = new WebSocket(
      `ws://localhost:${process.env.E2E_WS_PORT}/ws/agent/v1/stream?token=${token}&afterSeq=0`,
    );
    const streamed: AgentEvent[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on("error", reject);
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data));
        if (frame.type === "event" && frame.event.type === "email.received")
          streamed.push(AgentEvent.parse(frame.event));
        if (streamed.length === 2) resolve();
      });
    });
    ws.close();
    expect(streamed.map((e) => e.payload)).toEqual(expected);

    const hooked = () =>
      received
        .map((r) => AgentEvent.parse(JSON.parse(r.body)))
        .filter((e) => e.type === "email.received");
    await expect.poll(() => new Set(hooked().map((e) => e.id)).size, { timeout: 15_000 }).toBe(2);
    const byId = new Map(hooked().map((e) => [e.id, e.payload]));
    expect([...byId.values()]).toEqual(expect.arrayContaining(expected));
    expect(received.every((r) => r.headers["x-svc-event-type"])).toBe(true);

    const everything = JSON.stringify([polled, streamed, received.map((r) => r.body)]);
    expect(everything).not.toContain("5150");
    expect(everything).not.toContain("agentStartedThread");

    // The thread reads the same way: the person's email masked, the agent's own readable.
    const thread = AgentEmailThreadResponse.parse(
      await (await api.get(`/emails/${mine.thread.id}`)).json(),
    );
    expect(thread.thread.subject).toBe("Agent subject");
    expect(thread.messages.map((m) => m.content)).toEqual(["Hi", null]);
    const list = AgentEmailsResponse.parse(await (await api.get("/emails")).json());
    expect(list.threads.find((t) => t.id === theirs.threadId)).toMatchObject({
      subject: null,
      lastMessage: { content: null, accessDenied: { scope: "emails:read" } },
    });
  } finally {
    await receiver.close();
  }
});

test("emails and chat messages share the per-recipient limit", async ({ request }) => {
  const { auth, person, conversationId } = await emailContact();
  const api = agentApi(request, auth);
  await awayFromMinuteBoundary(20_000);
  const { thread } = await (
    await api.post("/emails", { to: person.num, subject: "Count", content: "0" })
  ).json();
  for (let i = 1; i < 10; i++)
    expect((await api.post(`/emails/${thread.id}/messages`, { content: String(i) })).status()).toBe(
      201,
    );
  for (let i = 0; i < 10; i++)
    expect((await api.send({ conversationId, type: "text", content: `chat ${i}` })).status()).toBe(
      201,
    );
  const limited = await api.post(`/emails/${thread.id}/messages`, { content: "one too many" });
  const error = await expectError(limited, 429, "conversation_rate_limited");
  expect(error.retryAfterSeconds).toBeGreaterThan(0);
  expect(limited.headers()["retry-after"]).toBeTruthy();
});
