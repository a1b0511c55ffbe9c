import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockAgent } from "../consent/agent-settings";
import { addContact, removeContact } from "../contacts/contacts";
import { readEvents } from "../events/read-events";
import { createAgent, pauseAgent, resumeAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { coreFailure, createTestDeps } from "../testing";
import { deleteAgentPost, getAgentPost, listAgentPosts } from "./agent-posts";
import { createPost } from "./create-post";
import {
  commentOnPost,
  deletePostComment,
  listPersonFeed,
  listPostComments,
  setPostLike,
  setPostRepost,
} from "./person-feed";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({
    env: { LIMIT_MESSAGES_PER_MIN: "4", LIMIT_DAILY_MESSAGES: "6" },
  });
});
afterAll(() => t.close());

async function newAgent(name = "Poster") {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: name,
    requestedScopes: ["messages:read", "messages:write"],
  });
  return { agentId: agent.id, agent };
}

async function follower(agentId: string, name = "Fan") {
  const person = await createUser(t.deps, { displayName: name });
  await addContact(t.deps, person.id, agentId, []);
  return person;
}

const failure = coreFailure;

const post = (agentId: string, texts: string[], caption?: string | null) =>
  createPost(t.deps, { agentId }, { texts, caption });

const feedIds = async (userId: string) =>
  (await listPersonFeed(t.deps, userId, { limit: 50 })).posts.map((p) => p.id);

describe("posting", () => {
  it("answers the post with its author, cards, caption and counters at 0, newest first in GET /posts", async () => {
    t.clock.set("2026-07-01T09:00:05Z");
    const { agentId, agent } = await newAgent();
    const first = await post(agentId, ["One", "Two"], "A thread");
    expect(first).toEqual({
      id: expect.stringMatching(/^pst_/),
      author: {
        id: agent.id,
        num: agent.num,
        displayName: "Poster",
        avatarUrl: null,
        userType: "agent",
      },
      texts: ["One", "Two"],
      caption: "A thread",
      likeCount: 0,
      commentCount: 0,
      repostCount: 0,
      createdAt: "2026-07-01T09:00:05.000Z",
    });
    const second = await post(agentId, ["Three"]);
    expect(second.caption).toBeNull();
    const third = await post(agentId, ["Four"], null);
    const listed = await listAgentPosts(t.deps, agentId, { limit: 50 });
    expect(listed.posts.map((p) => p.id)).toEqual([third.id, second.id, first.id]);
    expect(listed.hasMore).toBe(false);
    expect(await getAgentPost(t.deps, agentId, first.id)).toEqual(first);
  });

  it("pages with limit and before, like history; an unknown or foreign before is 404", async () => {
    t.clock.set("2026-07-01T10:00:05Z");
    const { agentId } = await newAgent();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await post(agentId, [`p${i}`])).id);
    const page1 = await listAgentPosts(t.deps, agentId, { limit: 2 });
    expect(page1.posts.map((p) => p.id)).toEqual([ids[2], ids[1]]);
    expect(page1.hasMore).toBe(true);
    const page2 = await listAgentPosts(t.deps, agentId, { limit: 2, before: ids[1] });
    expect(page2.posts.map((p) => p.id)).toEqual([ids[0]]);
    expect(page2.hasMore).toBe(false);
    const other = await newAgent();
    const theirs = await post(other.agentId, ["theirs"]);
    expect(
      (await failure(listAgentPosts(t.deps, agentId, { limit: 2, before: theirs.id })))?.code,
    ).toBe("not_found");
    expect(
      (await failure(listAgentPosts(t.deps, agentId, { limit: 2, before: "pst_nope" })))?.code,
    ).toBe("not_found");
  });

  it("checks the cards: 1-5 texts of 1-280 characters (an emoji is one), a caption of 1-1000", async () => {
    t.clock.set("2026-07-01T11:00:05Z");
    const { agentId } = await newAgent();
    const issuesOf = async (texts: unknown, caption?: unknown) => {
      const error = await failure(createPost(t.deps, { agentId }, { texts, caption } as never));
      expect(error?.code).toBe("validation_error");
      return [...new Set(error?.details.issues?.map((issue) => issue.path))];
    };
    expect(await issuesOf([])).toEqual(["texts"]);
    expect(await issuesOf(["a", "b", "c", "d", "e", "f"])).toEqual(["texts"]);
    expect(await issuesOf(["x".repeat(281)])).toEqual(["texts.0"]);
    expect(await issuesOf(["ok", ""])).toEqual(["texts.1"]);
    expect(await issuesOf(["ok", "   "])).toEqual(["texts.1"]);
    expect(await issuesOf(["ok"], "c".repeat(1001))).toEqual(["caption"]);
    expect(await issuesOf(["ok"], "")).toEqual(["caption"]);
    expect(await issuesOf("not a list")).toEqual(["texts"]);
    // At the limits it passes: 5 cards of 280 characters, 280 emoji (560 UTF-16 units).
    t.clock.set("2026-07-01T11:01:05Z");
    const full = await post(agentId, Array(5).fill("y".repeat(280)), "c".repeat(1000));
    expect(full.texts).toHaveLength(5);
    const emoji = await post(agentId, ["😀".repeat(280)]);
    expect(emoji.texts[0]).toBe("😀".repeat(280));
    // Refused posts were not charged: only the two that passed count.
    expect((await getAgentUsage(t.deps, agentId)).usage.messages).toBe(2);
  });

  it("refuses a paused agent with agent_paused and stores nothing", async () => {
    t.clock.set("2026-07-01T12:00:05Z");
    const { agentId } = await newAgent();
    await pauseAgent(t.deps, agentId);
    const error = await failure(post(agentId, ["hi"]));
    expect(error?.code).toBe("agent_paused");
    expect(error?.message).toMatch(/owner/);
    await resumeAgent(t.deps, agentId);
    expect((await listAgentPosts(t.deps, agentId, { limit: 50 })).posts).toEqual([]);
    expect((await post(agentId, ["back"])).texts).toEqual(["back"]);
  });

  it("counts as a message: the per-minute limit is shared with messages, and the daily ceiling pauses", async () => {
    t.clock.set("2026-07-02T09:00:05Z");
    const { agentId } = await newAgent();
    const fan = await createUser(t.deps, {});
    await addContact(t.deps, fan.id, agentId, ["messages:write"]);
    await sendAgentMessage(t.deps, { agentId }, { to: fan.num, type: "text", content: "hi" });
    await sendAgentMessage(t.deps, { agentId }, { to: fan.num, type: "text", content: "hi" });
    await post(agentId, ["one"]);
    await post(agentId, ["two"]);
    const limited = await failure(post(agentId, ["three"]));
    expect(limited?.code).toBe("rate_limited");
    expect(limited?.message).toMatch(/messages/);
    // Next minute: two more posts reach the daily ceiling of 6, which pauses the agent.
    t.clock.set("2026-07-02T09:01:05Z");
    await post(agentId, ["three"]);
    await post(agentId, ["four"]);
    expect((await getAgentUsage(t.deps, agentId)).usage.messages).toBe(6);
    t.clock.set("2026-07-02T09:02:05Z");
    const paused = await failure(post(agentId, ["five"]));
    expect(paused?.code).toBe("agent_paused");
    expect(paused?.message).toMatch(/automatically/);
  });

  it("needs no grant and no contact, and tells the agent nothing (no event)", async () => {
    t.clock.set("2026-07-03T09:00:05Z");
    const { agentId } = await newAgent();
    expect((await post(agentId, ["to nobody yet"])).likeCount).toBe(0);
    expect((await readEvents(t.deps, agentId, 0, 10)).events).toEqual([]);
  });
});

describe("reach", () => {
  it("is exactly the people who added the agent: removal hides its posts, re-adding shows them again", async () => {
    t.clock.set("2026-07-04T09:00:05Z");
    const { agentId } = await newAgent("Reach");
    const fan = await follower(agentId);
    const stranger = await createUser(t.deps, {});
    const a = await post(agentId, ["a"]);
    const b = await post(agentId, ["b"]);
    expect(await feedIds(fan.id)).toEqual([b.id, a.id]);
    expect(await feedIds(stranger.id)).toEqual([]);

    await removeContact(t.deps, fan.id, agentId);
    expect(await feedIds(fan.id)).toEqual([]);
    expect((await failure(setPostLike(t.deps, fan.id, a.id, true)))?.code).toBe("not_found");
    expect((await failure(listPostComments(t.deps, fan.id, a.id)))?.code).toBe("not_found");

    await addContact(t.deps, fan.id, agentId, []);
    expect(await feedIds(fan.id)).toEqual([b.id, a.id]);

    // A blocked agent's posts do not reach the person either, while it stays blocked.
    await blockAgent(t.deps, fan.id, agentId);
    expect(await feedIds(fan.id)).toEqual([]);
  });

  it("mixes the posts of every agent the person added, newest first, and pages with a cursor", async () => {
    t.clock.set("2026-07-04T10:00:05Z");
    const one = await newAgent("One");
    const two = await newAgent("Two");
    const fan = await follower(one.agentId);
    await addContact(t.deps, fan.id, two.agentId, []);
    const p1 = await post(one.agentId, ["1"]);
    const p2 = await post(two.agentId, ["2"]);
    const p3 = await post(one.agentId, ["3"]);
    expect(await feedIds(fan.id)).toEqual([p3.id, p2.id, p1.id]);
    const first = await listPersonFeed(t.deps, fan.id, { limit: 2 });
    expect(first.hasMore).toBe(true);
    const next = await listPersonFeed(t.deps, fan.id, { limit: 2, before: first.posts[1]?.id });
    expect(next.posts.map((p) => p.id)).toEqual([p1.id]);
    expect(next.hasMore).toBe(false);
  });

  it("wakes the open apps of everyone the post reaches, and no one else", async () => {
    t.clock.set("2026-07-04T11:00:05Z");
    const { agentId } = await newAgent();
    const fan = await follower(agentId);
    const stranger = await createUser(t.deps, {});
    const woken: string[] = [];
    const stops = await Promise.all(
      [fan.id, stranger.id].map((id) =>
        t.deps.notifier.subscribe(`user:${id}`, () => woken.push(id)),
      ),
    );
    await post(agentId, ["wake up"]);
    await expect.poll(() => woken, { timeout: 5000 }).toContain(fan.id);
    await new Promise((r) => setTimeout(r, 100));
    expect(woken).not.toContain(stranger.id);
    for (const stop of stops) stop();
  });
});

describe("likes, reposts and comments", () => {
  it("show in the counters the agent reads; each person counts once; undoing takes it back", async () => {
    t.clock.set("2026-07-05T09:00:05Z");
    const { agentId } = await newAgent();
    const ann = await follower(agentId, "Ann");
    const bob = await follower(agentId, "Bob");
    const p = await post(agentId, ["likeable"]);

    await setPostLike(t.deps, ann.id, p.id, true);
    await setPostLike(t.deps, ann.id, p.id, true);
    await setPostLike(t.deps, bob.id, p.id, true);
    await setPostRepost(t.deps, bob.id, p.id, true);
    const comment = await commentOnPost(t.deps, ann.id, { postId: p.id, text: "Nice 👍" });
    expect(comment).toEqual({
      id: expect.stringMatching(/^pcm_/),
      postId: p.id,
      authorName: "Ann",
      mine: true,
      text: "Nice 👍",
      createdAt: "2026-07-05T09:00:05.000Z",
    });
    expect(await getAgentPost(t.deps, agentId, p.id)).toMatchObject({
      likeCount: 2,
      commentCount: 1,
      repostCount: 1,
    });
    const [annSees] = (await listPersonFeed(t.deps, ann.id, { limit: 1 })).posts;
    expect(annSees).toMatchObject({ likeCount: 2, likedByMe: true, repostedByMe: false });
    const [bobSees] = (await listPersonFeed(t.deps, bob.id, { limit: 1 })).posts;
    expect(bobSees).toMatchObject({ likedByMe: true, repostedByMe: true });

    // Everyone the post reaches sees the comment, under the commenter's name only.
    expect(await listPostComments(t.deps, bob.id, p.id)).toEqual([{ ...comment, mine: false }]);
    expect((await failure(deletePostComment(t.deps, bob.id, comment.id)))?.code).toBe("not_found");

    await setPostLike(t.deps, ann.id, p.id, false);
    await setPostRepost(t.deps, bob.id, p.id, false);
    await deletePostComment(t.deps, ann.id, comment.id);
    expect(await getAgentPost(t.deps, agentId, p.id)).toMatchObject({
      likeCount: 1,
      commentCount: 0,
      repostCount: 0,
    });
  });

  it("refuses blank or overlong comments", async () => {
    t.clock.set("2026-07-05T10:00:05Z");
    const { agentId } = await newAgent();
    const fan = await follower(agentId);
    const p = await post(agentId, ["x"]);
    for (const text of ["", "  ", "c".repeat(1001)])
      expect((await failure(commentOnPost(t.deps, fan.id, { postId: p.id, text })))?.code).toBe(
        "validation_error",
      );
  });
});

describe("deleting", () => {
  it("answers ok, then 404 everywhere, gone from every feed with its likes and comments", async () => {
    t.clock.set("2026-07-06T09:00:05Z");
    const { agentId } = await newAgent();
    const fan = await follower(agentId);
    const keep = await post(agentId, ["keep"]);
    const gone = await post(agentId, ["gone"]);
    await setPostLike(t.deps, fan.id, gone.id, true);
    await commentOnPost(t.deps, fan.id, { postId: gone.id, text: "bye" });

    expect(await deleteAgentPost(t.deps, agentId, gone.id)).toEqual({ ok: true });
    expect((await failure(getAgentPost(t.deps, agentId, gone.id)))?.code).toBe("not_found");
    expect((await failure(deleteAgentPost(t.deps, agentId, gone.id)))?.code).toBe("not_found");
    expect((await listAgentPosts(t.deps, agentId, { limit: 50 })).posts.map((p) => p.id)).toEqual([
      keep.id,
    ]);
    expect(await feedIds(fan.id)).toEqual([keep.id]);
    expect((await failure(setPostLike(t.deps, fan.id, gone.id, true)))?.code).toBe("not_found");
    expect((await failure(listPostComments(t.deps, fan.id, gone.id)))?.code).toBe("not_found");
  });

  it("another agent's post is unknown: 404 on get and delete, and it stays", async () => {
    t.clock.set("2026-07-06T10:00:05Z");
    const mine = await newAgent();
    const theirs = await newAgent();
    const p = await post(theirs.agentId, ["theirs"]);
    expect((await failure(getAgentPost(t.deps, mine.agentId, p.id)))?.code).toBe("not_found");
    expect((await failure(deleteAgentPost(t.deps, mine.agentId, p.id)))?.code).toBe("not_found");
    expect((await getAgentPost(t.deps, theirs.agentId, p.id)).id).toBe(p.id);
  });
});
