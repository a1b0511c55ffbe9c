import { createServer, type Socket, connect as tcpConnect } from "node:net";
import { type OperationDef, type OperationId, operationErrors, ops } from "@switchboard/contract";
import { createRecord, sendPersonMessage } from "@switchboard/core";
import { schema } from "@switchboard/db";
import {
  isSwitchboardError,
  Switchboard,
  SwitchboardDeveloper,
  SwitchboardError,
} from "@switchboard/sdk";
import { count, eq } from "drizzle-orm";
import type { z } from "zod";
import { dataUrl, deps, newAgent, newContact, newDeveloper, wavBytes } from "../support/fixtures";
import { expect, test } from "../support/test";

/**
 * @switchboard/sdk against the running service: every method of both clients (each answer
 * checked against its registry entry's schema), typed errors, retries, the long-poll iterator.
 */
const baseUrl = `http://localhost:${process.env.E2E_PORT}/api`;
const allScopes = [
  "messages:read",
  "messages:write",
  "emails:read",
  "emails:write",
  "tasks:read",
  "tasks:write",
  "reminders:read",
  "events:read",
  "notes:read",
] as const;

/** The answer parses with the operation's response schema (the SDK hands out what the contract says). */
function expectShape(id: OperationId, result: unknown) {
  const response = (ops[id] as OperationDef).response as z.ZodType;
  const parsed = response.safeParse(result);
  expect(parsed.success, `${id}: ${parsed.error?.message}`).toBe(true);
}

async function failure(promise: Promise<unknown>): Promise<SwitchboardError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SwitchboardError);
  return error as SwitchboardError;
}

test("every Agent and Developer API method, typed by the registry, answers what its entry says", async () => {
  const { token, agent, person, conversationId } = await newContact({
    scopes: [...allScopes],
    grant: [...allScopes],
  });
  const client = new Switchboard({ token, baseUrl });
  const covered = new Set<OperationId>();
  const check = <K extends OperationId>(id: K, result: unknown) => {
    expectShape(id, result);
    covered.add(id);
    return result;
  };

  expect(check("getMe", await client.getMe())).toMatchObject({ id: agent.id });
  expect(check("updateMe", await client.updateMe({ bio: "made by the SDK" }))).toMatchObject({
    bio: "made by the SDK",
  });
  const chats = await client.listConversations();
  check("listConversations", chats);
  const { conversations } = chats;
  expect(conversations.map((c) => c.id)).toContain(conversationId);

  const { message: voice } = await sendPersonMessage(deps(), person.id, agent.id, {
    type: "voice",
    audioData: dataUrl("audio/wav", wavBytes()),
    audioDuration: "0.1",
  });
  const sent = await client.sendMessage({ conversationId, type: "text", content: "from the SDK" });
  check("sendMessage", sent);
  expect(sent.message).toMatchObject({ content: "from the SDK", senderId: agent.id });
  const history = await client.listMessages({ conversationId, limit: 10 });
  check("listMessages", history);
  expect(history.messages.map((m) => m.id)).toEqual(
    expect.arrayContaining([voice.id, sent.message.id]),
  );
  check("markRead", await client.markRead({ conversationId, messageId: voice.id }));
  check("setTyping", await client.setTyping({ conversationId }));
  check("setTyping", await client.setTyping({ conversationId, typing: false }));
  const reacted = await client.addReaction({ messageId: voice.id, emoji: "👍" });
  check("addReaction", reacted);
  expect(reacted.reaction).toMatchObject({ messageId: voice.id, emoji: "👍" });
  check("removeReaction", await client.removeReaction({ messageId: voice.id, emoji: "👍" }));

  const audio = await client.getMessageAudio({ messageId: voice.id });
  expect(audio.status).toBe(200);
  expect(Buffer.from(await audio.arrayBuffer())).toEqual(wavBytes());
  const part = await client.getMessageAudio(
    { messageId: voice.id },
    { headers: { Range: "bytes=0-3" } },
  );
  expect(part.status).toBe(206);
  expect(Buffer.from(await part.arrayBuffer()).toString("latin1")).toBe("RIFF");
  covered.add("getMessageAudio");

  const proposed = await client.proposeAction({
    conversationId,
    kind: "demo.sdk",
    title: "Try the SDK",
    payload: { step: 1 },
  });
  check("proposeAction", proposed);
  const actionId = proposed.action.id;
  const listed = await client.listActions({ conversationId, state: "pending", limit: 5 });
  check("listActions", listed);
  expect(listed.actions.map((a) => a.id)).toContain(actionId);
  expect(check("getAction", await client.getAction({ actionId }))).toMatchObject({
    action: { id: actionId, payload: { step: 1 } },
  });

  const cursor = await client.getUpdatesCursor();
  check("getUpdatesCursor", cursor);
  const page = await client.pollUpdates({ afterSeq: 0, limit: 100 });
  check("pollUpdates", page);
  expect(page.events.map((e) => e.type)).toEqual(
    expect.arrayContaining(["contact.added", "message.received"]),
  );
  expect(page.nextSeq).toBe(cursor.seq);

  expect(check("getWebhook", await client.getWebhook())).toEqual({ webhook: null });
  const put = await client.putWebhook({ url: "https://hooks.example.com/sdk" });
  check("putWebhook", put);
  expect(put.secret).toMatch(/^whsec_/);
  const rotated = await client.rotateWebhookSecret();
  check("rotateWebhookSecret", rotated);
  expect(rotated.secret).not.toBe(put.secret);
  expect(check("deleteWebhook", await client.deleteWebhook())).toEqual({ deleted: true });

  await createRecord(deps(), person.id, "task", { title: "from the person" });
  const { tasks } = await client.listTasks({ conversationId });
  check("listTasks", { tasks });
  expect(tasks.map((t) => t.title)).toContain("from the person");
  check("listReminders", await client.listReminders({ conversationId }));
  check("listEvents", await client.listEvents({ conversationId }));
  check("listNotes", await client.listNotes({ conversationId }));
  const emailed = await client.sendEmail({
    to: person.num,
    subject: "From the SDK",
    content: "A first email",
  });
  check("sendEmail", emailed);
  const threadId = emailed.thread.id;
  check("replyEmail", await client.replyEmail({ threadId, content: "And a second" }));
  const thread = await client.getEmailThread({ threadId });
  check("getEmailThread", thread);
  expect(thread.messages.map((m) => m.content)).toEqual(["A first email", "And a second"]);
  const inbox = await client.listEmails();
  check("listEmails", inbox);
  expect(inbox.threads.map((t) => t.id)).toContain(threadId);

  const post = await client.createPost({ texts: ["Posted with the SDK"] });
  check("createPost", post);
  expect(check("getPost", await client.getPost({ postId: post.id }))).toMatchObject({
    id: post.id,
  });
  check("listPosts", await client.listPosts({ limit: 5 }));
  expect(check("deletePost", await client.deletePost({ postId: post.id }))).toEqual({ ok: true });

  // `call` is the same by name.
  check("getMe", await client.call("getMe"));

  const { key, user } = await newDeveloper();
  const dev = new SwitchboardDeveloper({ key, baseUrl });
  expect(check("getDevMe", await dev.getDevMe())).toMatchObject({ id: user.id });
  const posted = await dev.postSelfMessage({ content: "build finished" });
  check("postSelfMessage", posted);
  expect(posted.message.content).toBe("build finished");

  // Every operation in the registry when this was written has a call above.
  const written = [
    ...["getMe", "updateMe", "listConversations", "sendMessage", "listMessages", "markRead"],
    ...["setTyping", "addReaction", "removeReaction", "getMessageAudio", "proposeAction"],
    ...["listActions", "getAction", "getUpdatesCursor", "pollUpdates", "getWebhook", "putWebhook"],
    ...["rotateWebhookSecret", "deleteWebhook", "listTasks", "listReminders", "listEvents"],
    ...["listNotes", "getDevMe", "postSelfMessage"],
    ...["sendEmail", "replyEmail", "getEmailThread", "listEmails"],
    ...["createPost", "getPost", "listPosts", "deletePost"],
  ];
  expect([...covered].sort()).toEqual(written.sort());
});

test("every registry operation, including ones added after the SDK, is reachable by its method", async () => {
  const { token } = await newContact();
  const { key } = await newDeveloper();
  const agentClient = new Switchboard({ token, baseUrl, maxRetries: 0 });
  const devClient = new SwitchboardDeveloper({ key, baseUrl, maxRetries: 0 });
  for (const [id, op] of Object.entries(ops) as [OperationId, OperationDef][]) {
    const client: object = op.surface === "agent" ? agentClient : devClient;
    const method: unknown = Reflect.get(client, id);
    expect(typeof method, id).toBe("function");
    // Unknown ids and an empty body: the answer is the entry's success or one of its codes.
    const params = Object.fromEntries(
      [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], `missing_${m[1]}`]),
    );
    const result = await (method as (input: object) => Promise<unknown>).call(client, params).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if ("value" in result) {
      if (!("binary" in op.response)) expectShape(id, result.value);
      continue;
    }
    expect(result.error, id).toBeInstanceOf(SwitchboardError);
    const error = result.error as SwitchboardError;
    expect(error.status, `${id}: ${error.message}`).toBeGreaterThan(0);
    expect(operationErrors(op), `${id} answered ${error.code}`).toContain(error.code);
  }
});

test("errors are typed: code, status, issues, scope; client codes for no answer", async () => {
  const { token, conversationId } = await newContact({ grant: ["messages:write"] });
  const client = new Switchboard({ token, baseUrl });
  const invalid = await failure(client.listMessages({ conversationId, limit: 500 }));
  expect(invalid).toMatchObject({
    code: "validation_error",
    status: 400,
    operationId: "listMessages",
    issues: [{ path: "limit", message: "must be 1-100" }],
  });
  const denied = await failure(client.listMessages({ conversationId }));
  expect(denied).toMatchObject({ code: "scope_not_granted", status: 403, scope: "messages:read" });
  expect(isSwitchboardError(denied, "listMessages")).toBe(true);
  expect(isSwitchboardError(denied, "sendMessage")).toBe(false);
  const missing = await failure(client.getAction({ actionId: "act_nope" }));
  expect(missing).toMatchObject({ code: "not_found", status: 404 });

  const stranger = new Switchboard({ token: "sbat_not_a_token", baseUrl });
  expect(await failure(stranger.getMe())).toMatchObject({ code: "unauthorized", status: 401 });
  const nobody = new Switchboard({ token, baseUrl: "http://127.0.0.1:9/api", maxRetries: 0 });
  expect(await failure(nobody.getMe())).toMatchObject({ code: "network_error", status: 0 });
});

test("a 429 is retried after its Retry-After: a sixth parked long-poll waits for a free slot", async () => {
  test.setTimeout(60_000);
  const { token, agent, person } = await newContact();
  const client = new Switchboard({ token, baseUrl });
  const { seq } = await client.getUpdatesCursor();
  // The service parks at most LONGPOLL_MAX_PARKED (5) long-polls per agent.
  const parked = Array.from({ length: 5 }, () => client.pollUpdates({ afterSeq: seq, wait: 20 }));
  await expect
    .poll(async () => {
      const [row] = await deps()
        .db.select({ held: count() })
        .from(schema.parkedPolls)
        .where(eq(schema.parkedPolls.agentId, agent.id));
      return row?.held;
    })
    .toBe(5);
  const probe = new Switchboard({ token, baseUrl, maxRetries: 0 });
  const refused = await failure(probe.pollUpdates({ afterSeq: seq, wait: 1 }));
  expect(refused).toMatchObject({ code: "rate_limited", status: 429, retryAfterSeconds: 1 });

  const retries: { delayMs: number; error: Error }[] = [];
  const patient = new Switchboard({
    token,
    baseUrl,
    maxRetries: 5,
    onRetry: (r) => retries.push(r),
  });
  const sixth = patient.pollUpdates({ afterSeq: seq, wait: 20 });
  await expect.poll(() => retries.length).toBeGreaterThan(0);
  expect(retries[0]).toMatchObject({ delayMs: 1000, error: { code: "rate_limited" } });
  // An event frees the parked polls; the retried one then finds it.
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "free a slot" });
  const page = await sixth;
  expect(page.events.map((e) => e.type)).toEqual(["message.received"]);
  await Promise.all(parked);
});

/**
 * A TCP proxy to the web app that resets the first `drop` connections it gets, or, with
 * `loseFirstAnswer`, passes the first request on and resets the connection when its answer
 * comes back. Records each request's `Idempotency-Key`.
 */
async function flakyProxy(drop: number, options: { loseFirstAnswer?: boolean } = {}) {
  let connections = 0;
  const keys: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    if (connections <= drop) return void socket.resetAndDestroy();
    const upstream = tcpConnect(Number(process.env.E2E_PORT), "127.0.0.1");
    socket.on("data", (chunk: Buffer) => {
      const key = /\r\nidempotency-key: ([^\r]*)\r\n/i.exec(chunk.toString("latin1"));
      if (key?.[1]) keys.push(key[1]);
    });
    if (options.loseFirstAnswer && connections === 1) {
      socket.pipe(upstream);
      upstream.once("data", () => socket.resetAndDestroy());
      upstream.on("error", () => socket.destroy());
      return;
    }
    socket.pipe(upstream).pipe(socket);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    connections: () => connections,
    idempotencyKeys: () => keys,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

test("network failures are retried with backoff; a POST retried with its key is done once", async () => {
  const { token, conversationId } = await newContact();
  const proxy = await flakyProxy(1);
  const retries: { error: Error }[] = [];
  const client = new Switchboard({
    token,
    baseUrl: proxy.baseUrl,
    retryDelayMs: 50,
    onRetry: (r) => retries.push(r),
  });
  expect((await client.getMe()).userType).toBe("agent");
  expect(retries).toEqual([
    expect.objectContaining({ error: expect.objectContaining({ code: "network_error" }) }),
  ]);
  await proxy.close();

  // The service sends the message, then its answer is lost on the way back: the SDK retries with
  // the same Idempotency-Key and gets the first answer, and the message is in history once.
  const lossy = await flakyProxy(0, { loseFirstAnswer: true });
  const poster = new Switchboard({ token, baseUrl: lossy.baseUrl, retryDelayMs: 50 });
  const sent = await poster.sendMessage({ conversationId, type: "text", content: "once" });
  expect(lossy.connections()).toBe(2);
  const keys = lossy.idempotencyKeys();
  expect(keys).toHaveLength(2);
  expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  expect(keys[1]).toBe(keys[0]);
  const history = await new Switchboard({ token, baseUrl }).listMessages({ conversationId });
  expect(history.messages.filter((m) => m.content === "once").map((m) => m.id)).toEqual([
    sent.message.id,
  ]);
  await lossy.close();

  // Each call has its own key; a key given by the caller is sent as is.
  const direct = await flakyProxy(0);
  const client2 = new Switchboard({ token, baseUrl: direct.baseUrl });
  await client2.sendMessage({ conversationId, type: "text", content: "a" });
  await client2.sendMessage(
    { conversationId, type: "text", content: "b" },
    { idempotencyKey: "mine-1" },
  );
  const [first, second] = direct.idempotencyKeys();
  expect(first).not.toBe("mine-1");
  expect(second).toBe("mine-1");
  await direct.close();
});

test("updates() iterates events by long-poll, keeps the cursor, resumes after it, starts at the latest", async () => {
  test.setTimeout(60_000);
  const { token, agent, person } = await newContact();
  const client = new Switchboard({ token, baseUrl });
  const all = client.updates({ wait: 1 });
  const first = await all.next();
  expect(first.value).toMatchObject({ type: "contact.added" });
  expect(all.cursor).toBe(first.value?.seq);
  await all.return();

  for (const content of ["one", "two"])
    await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content });
  const seen: string[] = [];
  const resumed = client.updates({ afterSeq: all.cursor, wait: 1 });
  for await (const event of resumed) {
    if (event.type === "message.received") seen.push(event.payload.message?.content ?? "");
    if (seen.length === 2) break;
  }
  expect(seen).toEqual(["one", "two"]);

  const latest = client.updates({ afterSeq: "latest", wait: 5 });
  const next = latest.next();
  await expect.poll(() => latest.cursor).toBe(resumed.cursor);
  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "three" });
  expect((await next).value).toMatchObject({
    type: "message.received",
    payload: { message: { content: "three" } },
  });

  // A signal ends the loop quietly, even mid-wait.
  const stop = new AbortController();
  const stopped = client.updates({ afterSeq: latest.cursor, wait: 20, signal: stop.signal });
  const pending = stopped.next();
  setTimeout(() => stop.abort(), 200);
  expect(await pending).toEqual({ value: undefined, done: true });
});

test("an agent refused for good ends updates() with the error", async () => {
  const { token } = await newAgent();
  const client = new Switchboard({ token: `${token}x`, baseUrl });
  const error = await failure(client.updates({ wait: 1 }).next());
  expect(error.code).toBe("unauthorized");
});
