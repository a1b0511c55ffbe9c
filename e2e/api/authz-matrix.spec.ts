import {
  addContact,
  addReaction,
  blockAgent,
  createPost,
  createRecord,
  createUser,
  proposeAction,
  sendAgentMessage,
  sendPersonEmail,
  sendPersonMessage,
  setInitiation,
} from "@switchboard/core";
import { agentApi, dataUrl, deps, newAgent, oggBytes, PNG_1X1 } from "../support/fixtures";
import { expect, test } from "../support/test";

/**
 * The authorization matrix of the Agent API: agent A calls every endpoint that takes an id with
 * agent B's ids (and B's person's stored media) and gets the envelope with the code below, and
 * nothing of B's world leaks into any answer. A new id-taking endpoint (email threads, posts)
 * is one more row.
 */

const SECRETS = {
  name: "Beatrix Hidden-Person",
  content: "bee secret content 7731",
  title: "bee secret proposal 7731",
  task: "bee secret task 7731",
};

const ALL = [
  "messages:read",
  "messages:write",
  "emails:read",
  "emails:write",
  "tasks:read",
  "reminders:read",
  "events:read",
  "notes:read",
] as const;

/** Agent B's world, full of things A must never see. */
async function worldOfB() {
  const b = await newAgent({ scopes: [...ALL] });
  const person = await createUser(deps(), { displayName: SECRETS.name });
  const { conversationId } = await addContact(deps(), person.id, b.agent.id, [...ALL]);
  await createRecord(deps(), person.id, "task", { title: SECRETS.task });
  const { message: voice } = await sendPersonMessage(deps(), person.id, b.agent.id, {
    type: "voice",
    content: SECRETS.content,
    audioData: dataUrl("audio/ogg", oggBytes()),
    audioDuration: "1",
  });
  const { message: image } = await sendPersonMessage(deps(), person.id, b.agent.id, {
    type: "image",
    content: SECRETS.content,
    imageData: dataUrl("image/png", PNG_1X1),
  });
  const { message: own } = await sendAgentMessage(
    deps(),
    { agentId: b.agent.id },
    { conversationId, type: "text", content: SECRETS.content },
  );
  await addReaction(deps(), b.agent.id, voice.id, "👍");
  const { action } = await proposeAction(
    deps(),
    { agentId: b.agent.id },
    { conversationId, kind: "secret.kind", title: SECRETS.title },
  );
  const email = await sendPersonEmail(deps(), person.id, {
    to: [b.agent.num],
    subject: SECRETS.title,
    content: SECRETS.content,
  });
  const post = await createPost(deps(), { agentId: b.agent.id }, { texts: [SECRETS.content] });
  return { b, person, conversationId, voice, image, own, action, thread: email.threadId, post };
}

type World = Awaited<ReturnType<typeof worldOfB>>;
interface Row {
  name: string;
  method: "GET" | "POST" | "DELETE";
  path: (w: World, mine: string) => string;
  body?: (w: World, mine: string) => Record<string, unknown>;
  /** Expected status and code; or, for a list, the empty answer it must give (nothing of B's). */
  expect: [number, string] | { empty: Record<string, unknown> };
}

const rows: Row[] = [
  {
    name: "history of B's conversation",
    method: "GET",
    path: (w) => `/conversations/${w.conversationId}/messages`,
    expect: [403, "forbidden"],
  },
  {
    name: "history of A's conversation paged before B's message",
    method: "GET",
    path: (w, mine) => `/conversations/${mine}/messages?before=${w.voice.id}`,
    expect: [404, "not_found"],
  },
  {
    name: "read receipt in B's conversation",
    method: "POST",
    path: (w) => `/conversations/${w.conversationId}/read`,
    body: (w) => ({ messageId: w.voice.id }),
    expect: [403, "forbidden"],
  },
  {
    name: "read receipt naming B's message in A's conversation",
    method: "POST",
    path: (_, mine) => `/conversations/${mine}/read`,
    body: (w) => ({ messageId: w.voice.id }),
    expect: [404, "not_found"],
  },
  {
    name: "typing in B's conversation",
    method: "POST",
    path: (w) => `/conversations/${w.conversationId}/typing`,
    expect: [403, "forbidden"],
  },
  ...(["tasks", "reminders", "events", "notes"] as const).map(
    (surface): Row => ({
      name: `${surface} of B's person`,
      method: "GET",
      path: (w) => `/conversations/${w.conversationId}/${surface}`,
      expect: [403, "forbidden"],
    }),
  ),
  {
    name: "audio of B's person's voice note",
    method: "GET",
    path: (w) => `/messages/${w.voice.id}/audio`,
    expect: [404, "message_not_found"],
  },
  {
    name: "audio of B's own message",
    method: "GET",
    path: (w) => `/messages/${w.own.id}/audio`,
    expect: [404, "message_not_found"],
  },
  {
    name: "reaction on B's message",
    method: "POST",
    path: (w) => `/messages/${w.voice.id}/reactions`,
    body: () => ({ emoji: "👀" }),
    expect: [404, "not_found"],
  },
  {
    name: "removing B's reaction",
    method: "DELETE",
    path: (w) => `/messages/${w.voice.id}/reactions/${encodeURIComponent("👍")}`,
    expect: [404, "not_found"],
  },
  {
    name: "B's proposal",
    method: "GET",
    path: (w) => `/actions/${w.action.id}`,
    expect: [404, "not_found"],
  },
  {
    name: "proposals filtered by B's conversation",
    method: "GET",
    path: (w) => `/actions?conversationId=${w.conversationId}`,
    expect: { empty: { actions: [] } },
  },
  {
    name: "a proposal into B's conversation",
    method: "POST",
    path: () => "/actions",
    body: (w) => ({ conversationId: w.conversationId, kind: "k", title: "t" }),
    expect: [403, "forbidden"],
  },
  {
    name: "a send into B's conversation",
    method: "POST",
    path: () => "/messages",
    body: (w) => ({ conversationId: w.conversationId, type: "text", content: "hi" }),
    expect: [403, "forbidden"],
  },
  {
    name: "a send to B's person",
    method: "POST",
    path: () => "/messages",
    body: (w) => ({ to: w.person.num, type: "text", content: "hi" }),
    expect: [403, "not_a_contact"],
  },
  {
    name: "a reply to B's message",
    method: "POST",
    path: () => "/messages",
    body: (w, mine) => ({
      conversationId: mine,
      type: "text",
      content: "hi",
      replyToId: w.voice.id,
    }),
    expect: [400, "validation_error"],
  },
  {
    name: "reusing B's person's voice note object",
    method: "POST",
    path: () => "/messages",
    body: (w, mine) => ({
      conversationId: mine,
      type: "voice",
      content: "x",
      audioData: w.voice.audio?.data,
      audioDuration: "1",
    }),
    expect: [400, "invalid_audio"],
  },
  {
    name: "reusing B's person's image object",
    method: "POST",
    path: () => "/messages",
    body: (w, mine) => ({
      conversationId: mine,
      type: "image",
      content: "x",
      imageData: w.image.image?.data,
    }),
    expect: [400, "validation_error"],
  },
  {
    name: "reusing B's person's object as a document",
    method: "POST",
    path: () => "/messages",
    body: (w, mine) => ({
      conversationId: mine,
      type: "document",
      content: "x",
      documentData: w.image.image?.data,
      documentName: "x",
    }),
    expect: [400, "validation_error"],
  },
  {
    name: "B's email thread",
    method: "GET",
    path: (w) => `/emails/${w.thread}`,
    expect: [404, "not_found"],
  },
  {
    name: "a reply in B's email thread",
    method: "POST",
    path: (w) => `/emails/${w.thread}/messages`,
    body: () => ({ content: "hi" }),
    expect: [404, "not_found"],
  },
  {
    name: "an email to B's person",
    method: "POST",
    path: () => "/emails",
    body: (w) => ({ to: w.person.num, subject: "s", content: "hi" }),
    expect: [403, "not_a_contact"],
  },
  {
    name: "A's inbox",
    method: "GET",
    path: () => "/emails",
    expect: { empty: { threads: [], hasMore: false } },
  },
  {
    name: "B's post",
    method: "GET",
    path: (w) => `/posts/${w.post.id}`,
    expect: [404, "not_found"],
  },
  {
    name: "deleting B's post",
    method: "DELETE",
    path: (w) => `/posts/${w.post.id}`,
    expect: [404, "not_found"],
  },
  {
    name: "A's posts",
    method: "GET",
    path: () => "/posts",
    expect: { empty: { posts: [], hasMore: false } },
  },
];

test("agent A gets 403/404 for every one of agent B's ids, and nothing of B's world leaks", async ({
  request,
}) => {
  const w = await worldOfB();
  const a = await newAgent({ scopes: [...ALL] });
  const mine = await createUser(deps(), { displayName: "A's person" });
  const { conversationId } = await addContact(deps(), mine.id, a.agent.id, [...ALL]);
  const api = agentApi(request, a.auth);
  const leaks = [...Object.values(SECRETS), w.person.id, w.b.agent.id];
  for (const row of rows) {
    const url = `/api/agent/v1${row.path(w, conversationId)}`;
    const options = {
      headers: a.auth,
      ...(row.body && { data: row.body(w, conversationId) }),
    };
    const response =
      row.method === "GET"
        ? await request.get(url, options)
        : row.method === "POST"
          ? await request.post(url, options)
          : await request.delete(url, options);
    const text = await response.text();
    for (const secret of leaks) expect(text, `${row.name} leaks ${secret}`).not.toContain(secret);
    const body = JSON.parse(text);
    if ("empty" in row.expect) {
      expect(response.status(), row.name).toBe(200);
      expect(body, row.name).toEqual(row.expect.empty);
      continue;
    }
    const [status, code] = row.expect;
    expect([response.status(), body.error?.code], `${row.name}: ${text}`).toEqual([status, code]);
    expect(Object.keys(body), row.name).toEqual(["error"]);
  }
  // A's own lists and events show nothing of B's either.
  for (const path of [
    "/conversations",
    "/actions",
    "/emails",
    "/posts",
    "/updates?afterSeq=0",
    "/me",
  ]) {
    const text = await (await api.get(path)).text();
    for (const secret of leaks) expect(text, `${path} leaks ${secret}`).not.toContain(secret);
    for (const id of [w.conversationId, w.thread, w.post.id]) expect(text).not.toContain(id);
  }
});

test("a person who blocks or restricts an agent they never added stays invisible to it", async ({
  request,
}) => {
  const a = await newAgent();
  const stranger = await createUser(deps(), { displayName: SECRETS.name });
  await blockAgent(deps(), stranger.id, a.agent.id);
  await setInitiation(deps(), stranger.id, a.agent.id, "reply_only");
  const api = agentApi(request, a.auth);
  expect(await (await api.get("/conversations")).json()).toEqual({
    conversations: [],
    hasMore: false,
  });
  expect(await (await api.get("/updates?afterSeq=0")).json()).toEqual({ events: [], nextSeq: 0 });
  expect(await (await api.get("/updates/cursor")).json()).toEqual({ seq: 0 });
});
