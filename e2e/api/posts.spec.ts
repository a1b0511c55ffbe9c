import {
  addContact,
  commentOnPost,
  createUser,
  listPersonFeed,
  pauseAgent,
  removeContact,
  resumeAgent,
  setPostLike,
  setPostRepost,
} from "@switchboard/core";
import { utcDay } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { agentApi, deps, newAgent, newContact } from "../support/fixtures";
import { awayFromMinuteBoundary, expectError } from "../support/http";
import { expect, test } from "../support/test";

const feedOf = async (userId: string) =>
  (await listPersonFeed(deps(), userId, { limit: 50 })).posts.map((post) => post.id);

test("POST /posts answers 201 with the post and its counters at 0; it needs no grant and no contact", async ({
  request,
}) => {
  const { agent, auth } = await newAgent({ name: "Poster" });
  const api = agentApi(request, auth);
  const created = await api.post("/posts", { texts: ["First card", "Second card"], caption: "Hi" });
  expect(created.status(), await created.text()).toBe(201);
  const post = await created.json();
  expect(post).toEqual({
    id: expect.stringMatching(/^pst_/),
    author: {
      id: agent.id,
      num: agent.num,
      displayName: "Poster",
      avatarUrl: null,
      userType: "agent",
    },
    texts: ["First card", "Second card"],
    caption: "Hi",
    likeCount: 0,
    commentCount: 0,
    repostCount: 0,
    createdAt: expect.any(String),
  });
  const got = await api.get(`/posts/${post.id}`);
  expect(got.status()).toBe(200);
  expect(await got.json()).toEqual(post);
  const bare = await (await api.post("/posts", { texts: ["No caption"] })).json();
  expect(bare.caption).toBeNull();
});

test("GET /posts lists the agent's own posts newest first, paged with limit and before", async ({
  request,
}) => {
  const { auth } = await newAgent();
  const other = await newAgent();
  const api = agentApi(request, auth);
  const ids: string[] = [];
  for (const text of ["one", "two", "three"])
    ids.push((await (await api.post("/posts", { texts: [text] })).json()).id);
  await agentApi(request, other.auth).post("/posts", { texts: ["not mine"] });

  const all = await (await api.get("/posts")).json();
  expect(all.posts.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1], ids[0]]);
  expect(all.hasMore).toBe(false);
  const page = await (await api.get("/posts?limit=2")).json();
  expect(page.posts.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
  expect(page.hasMore).toBe(true);
  const older = await (await api.get(`/posts?limit=2&before=${ids[1]}`)).json();
  expect(older).toEqual({ posts: [expect.objectContaining({ id: ids[0] })], hasMore: false });

  for (const query of ["limit=0", "limit=101", "limit=x", "since=1"])
    await expectError(await api.get(`/posts?${query}`), 400, "validation_error");
  await expectError(await api.get("/posts?before=pst_unknown"), 404, "not_found");
  const theirs = (await (await agentApi(request, other.auth).get("/posts")).json()).posts[0];
  await expectError(await api.get(`/posts?before=${theirs.id}`), 404, "not_found");
});

test("post bounds: 1-5 texts of 1-280 characters, a caption of 1-1000, nothing else", async ({
  request,
}) => {
  const { auth } = await newAgent();
  const api = agentApi(request, auth);
  const refused = [
    [{}, "texts"],
    [{ texts: [] }, "texts"],
    [{ texts: ["1", "2", "3", "4", "5", "6"] }, "texts"],
    [{ texts: ["x".repeat(281)] }, "texts.0"],
    [{ texts: ["ok", ""] }, "texts.1"],
    [{ texts: ["ok", "   "] }, "texts.1"],
    [{ texts: ["ok", 5] }, "texts.1"],
    [{ texts: "ok" }, "texts"],
    [{ texts: ["ok"], caption: "c".repeat(1001) }, "caption"],
    [{ texts: ["ok"], caption: "" }, "caption"],
    [{ texts: ["ok"], imageData: "data:image/png;base64,AAAA" }, ""],
  ] as const;
  for (const [body, path] of refused) {
    const error = await expectError(await api.post("/posts", body), 400, "validation_error");
    expect(
      error.issues?.map((issue) => issue.path),
      JSON.stringify(body),
    ).toContain(path);
  }
  // At the limits: five cards of 280, 280 emoji (one character each), a 1000-character caption.
  const full = await api.post("/posts", {
    texts: [...Array(4).fill("y".repeat(280)), "😀".repeat(280)],
    caption: "c".repeat(1000),
  });
  expect(full.status(), await full.text()).toBe(201);
  expect((await full.json()).texts[4]).toBe("😀".repeat(280));
});

test("DELETE /posts/{postId} answers ok, then 404 everywhere; another account's post is 404", async ({
  request,
}) => {
  const { agent, auth } = await newAgent();
  const other = await newAgent();
  const api = agentApi(request, auth);
  const person = await createUser(deps(), {});
  await addContact(deps(), person.id, agent.id, []);
  const keep = await (await api.post("/posts", { texts: ["keep"] })).json();
  const gone = await (await api.post("/posts", { texts: ["gone"] })).json();
  const theirs = await (
    await agentApi(request, other.auth).post("/posts", { texts: ["x"] })
  ).json();
  expect(await feedOf(person.id)).toEqual([gone.id, keep.id]);

  await expectError(await api.get(`/posts/${theirs.id}`), 404, "not_found");
  await expectError(await api.delete(`/posts/${theirs.id}`), 404, "not_found");
  await expectError(await api.get("/posts/pst_unknown"), 404, "not_found");

  const deleted = await api.delete(`/posts/${gone.id}`);
  expect(deleted.status()).toBe(200);
  expect(await deleted.json()).toEqual({ ok: true });
  await expectError(await api.get(`/posts/${gone.id}`), 404, "not_found");
  await expectError(await api.delete(`/posts/${gone.id}`), 404, "not_found");
  const listed = await (await api.get("/posts")).json();
  expect(listed.posts.map((p: { id: string }) => p.id)).toEqual([keep.id]);
  expect(await feedOf(person.id)).toEqual([keep.id]);
  // The other agent's post is untouched.
  expect((await agentApi(request, other.auth).get(`/posts/${theirs.id}`)).status()).toBe(200);
  // Other methods are 405 in the envelope.
  await expectError(
    await request.put("/api/agent/v1/posts", { headers: auth }),
    405,
    "method_not_allowed",
  );
});

test("a paused agent gets 403 agent_paused on every post call", async ({ request }) => {
  const { agent, auth } = await newAgent();
  const api = agentApi(request, auth);
  const post = await (await api.post("/posts", { texts: ["before"] })).json();
  await pauseAgent(deps(), agent.id);
  await expectError(await api.post("/posts", { texts: ["during"] }), 403, "agent_paused");
  await expectError(await api.get("/posts"), 403, "agent_paused");
  await expectError(await api.get(`/posts/${post.id}`), 403, "agent_paused");
  await expectError(await api.delete(`/posts/${post.id}`), 403, "agent_paused");
  await resumeAgent(deps(), agent.id);
  const listed = await (await api.get("/posts")).json();
  expect(listed.posts.map((p: { texts: string[] }) => p.texts)).toEqual([["before"]]);
});

test("posts count as messages: 60 a minute shared with messages, then 429", async ({ request }) => {
  const { auth, person } = await newContact();
  const api = agentApi(request, auth);
  await awayFromMinuteBoundary(20_000);
  // 20 messages (the per-recipient limit) and 40 posts use up the minute's 60 messages.
  const messages = await Promise.all(
    Array.from({ length: 20 }, () => api.send({ to: person.num, type: "text", content: "hi" })),
  );
  expect(messages.map((r) => r.status())).toEqual(Array(20).fill(201));
  const posts = await Promise.all(
    Array.from({ length: 40 }, (_, i) => api.post("/posts", { texts: [`post ${i}`] })),
  );
  expect(posts.map((r) => r.status())).toEqual(Array(40).fill(201));
  const limited = await api.post("/posts", { texts: ["one too many"] });
  const error = await expectError(limited, 429, "rate_limited");
  expect(error.retryAfterSeconds).toBeGreaterThan(0);
  expect(limited.headers()["retry-after"]).toBe(String(error.retryAfterSeconds));
});

test("posts count toward the daily message ceiling, which pauses the agent automatically", async ({
  request,
}) => {
  const { agent, auth } = await newAgent();
  const api = agentApi(request, auth);
  // Today's count as if 1999 messages were sent already (sending them would take half an hour).
  await deps()
    .db.insert(schema.agentDailyUsage)
    .values({
      agentId: agent.id,
      day: utcDay(new Date()),
      messages: 1999,
      proposals: 0,
      refused: 0,
    });
  expect((await api.post("/posts", { texts: ["the 2000th message"] })).status()).toBe(201);
  const paused = await expectError(
    await api.post("/posts", { texts: ["over"] }),
    403,
    "agent_paused",
  );
  expect(paused.message).toMatch(/automatically/);
});

test("reach is exactly the people who added the agent: remove hides its posts, re-adding shows them", async ({
  request,
}) => {
  const { agent, auth, person } = await newContact();
  const stranger = await createUser(deps(), {});
  const api = agentApi(request, auth);
  const post = await (await api.post("/posts", { texts: ["for my contacts"] })).json();
  expect(await feedOf(person.id)).toEqual([post.id]);
  expect(await feedOf(stranger.id)).toEqual([]);
  await removeContact(deps(), person.id, agent.id);
  expect(await feedOf(person.id)).toEqual([]);
  await addContact(deps(), person.id, agent.id, []);
  expect(await feedOf(person.id)).toEqual([post.id]);
});

test("the agent reads the counters after people like, comment on and repost its post", async ({
  request,
}) => {
  const { agent, auth, person } = await newContact();
  const second = await createUser(deps(), {});
  await addContact(deps(), second.id, agent.id, []);
  const api = agentApi(request, auth);
  const post = await (await api.post("/posts", { texts: ["like me"] })).json();
  await setPostLike(deps(), person.id, post.id, true);
  await setPostLike(deps(), second.id, post.id, true);
  await setPostRepost(deps(), second.id, post.id, true);
  await commentOnPost(deps(), person.id, { postId: post.id, text: "Nice" });
  const counted = await (await api.get(`/posts/${post.id}`)).json();
  expect(counted).toMatchObject({ likeCount: 2, commentCount: 1, repostCount: 1 });
  const listed = await (await api.get("/posts")).json();
  expect(listed.posts[0]).toEqual(counted);
  await setPostLike(deps(), second.id, post.id, false);
  expect((await (await api.get(`/posts/${post.id}`)).json()).likeCount).toBe(1);
});
