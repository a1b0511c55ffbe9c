import { type FeedPage, type PostComment, PostCommentRequest } from "@switchboard/contract";
import { type Executor, schema, type Tx } from "@switchboard/db";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { newId } from "../ids";
import { cursorPos, postColumns, reachesPerson, reachTopics, toAgentPost } from "./post-shape";

const { postComments, postLikes, postReposts, posts, users } = schema;

/** Comments shown under a post (the newest ones, oldest first). */
export const POST_COMMENTS_SHOWN = 200;

const noSuchPost = (postId: string) => new CoreError("not_found", `No post ${postId} in your feed`);

/**
 * A person's feed: the posts of the agents in their contacts (not blocked), newest first, with
 * the counters and whether they liked or reposted each. `before` (a post in their feed) pages
 * back from that post.
 */
export async function listPersonFeed(
  deps: CoreDeps,
  userId: string,
  query: { limit: number; before?: string | null },
): Promise<FeedPage> {
  const visible = reachesPerson(userId);
  const before = query.before ? await cursorPos(deps.db, query.before, visible) : null;
  if (query.before && before === null) throw noSuchPost(query.before);
  const mine = (table: typeof postLikes | typeof postReposts) =>
    sql<boolean>`exists (select 1 from ${table} where ${and(
      eq(table.postId, posts.id),
      eq(table.userId, userId),
    )})`;
  const rows = await deps.db
    .select({ ...postColumns, likedByMe: mine(postLikes), repostedByMe: mine(postReposts) })
    .from(posts)
    .innerJoin(users, eq(users.id, posts.authorId))
    .where(and(visible, before === null ? undefined : lt(posts.pos, before)))
    .orderBy(desc(posts.pos))
    .limit(query.limit + 1);
  return {
    posts: rows.slice(0, query.limit).map((row) => ({
      ...toAgentPost(row),
      likedByMe: Boolean(row.likedByMe),
      repostedByMe: Boolean(row.repostedByMe),
    })),
    hasMore: rows.length > query.limit,
  };
}

/**
 * Runs a person's response to a post in their feed (a post that does not reach them is unknown),
 * then wakes everyone the post reaches, whose counters changed.
 */
async function respond<T>(
  deps: CoreDeps,
  userId: string,
  postId: string,
  change: (tx: Tx) => Promise<T>,
): Promise<T> {
  return deps.db.transaction(async (tx) => {
    const [post] = await tx
      .select({ authorId: posts.authorId })
      .from(posts)
      .where(and(eq(posts.id, postId), reachesPerson(userId)))
      .for("share", { of: posts });
    if (!post) throw noSuchPost(postId);
    const result = await change(tx);
    await notifyTopics(tx, await reachTopics(tx, post.authorId));
    return result;
  });
}

/** Likes (`on`) or unlikes a post in the person's feed; doing it twice changes nothing. */
export async function setPostLike(
  deps: CoreDeps,
  userId: string,
  postId: string,
  on: boolean,
): Promise<{ ok: true }> {
  return toggle(deps, postLikes, userId, postId, on);
}

/** Reposts (`on`) or takes back a repost of a post in the person's feed. */
export async function setPostRepost(
  deps: CoreDeps,
  userId: string,
  postId: string,
  on: boolean,
): Promise<{ ok: true }> {
  return toggle(deps, postReposts, userId, postId, on);
}

async function toggle(
  deps: CoreDeps,
  table: typeof postLikes | typeof postReposts,
  userId: string,
  postId: string,
  on: boolean,
): Promise<{ ok: true }> {
  await respond(deps, userId, postId, async (tx) => {
    if (on)
      await tx
        .insert(table)
        .values({ postId, userId, createdAt: deps.clock.now() })
        .onConflictDoNothing();
    else await tx.delete(table).where(and(eq(table.postId, postId), eq(table.userId, userId)));
  });
  return { ok: true };
}

/** A person comments on a post in their feed; everyone the post reaches sees the comment. */
export async function commentOnPost(
  deps: CoreDeps,
  userId: string,
  input: PostCommentRequest,
): Promise<PostComment> {
  const { postId, text } = parseInput(PostCommentRequest, input);
  return respond(deps, userId, postId, async (tx) => {
    const [row] = await tx
      .insert(postComments)
      .values({ id: newId("pcm"), postId, userId, text, createdAt: deps.clock.now() })
      .returning();
    const [author] = await tx
      .select({ displayName: users.displayName })
      .from(users)
      .where(eq(users.id, userId));
    const comment = row as typeof postComments.$inferSelect;
    return toPostComment(comment, author?.displayName ?? null, userId);
  });
}

/** The comments under a post in the person's feed: the newest 200, oldest first. */
export async function listPostComments(
  deps: CoreDeps,
  userId: string,
  postId: string,
): Promise<PostComment[]> {
  const [post] = await visiblePost(deps.db, userId, postId);
  if (!post) throw noSuchPost(postId);
  const rows = await deps.db
    .select({ comment: postComments, authorName: users.displayName })
    .from(postComments)
    .innerJoin(users, eq(users.id, postComments.userId))
    .where(eq(postComments.postId, postId))
    .orderBy(desc(postComments.pos))
    .limit(POST_COMMENTS_SHOWN);
  return rows.reverse().map((row) => toPostComment(row.comment, row.authorName, userId));
}

/** A person deletes their own comment (also after removing the agent: it is theirs). */
export async function deletePostComment(
  deps: CoreDeps,
  userId: string,
  commentId: string,
): Promise<{ ok: true }> {
  await deps.db.transaction(async (tx) => {
    const [gone] = await tx
      .delete(postComments)
      .where(and(eq(postComments.id, commentId), eq(postComments.userId, userId)))
      .returning({ postId: postComments.postId });
    if (!gone) throw new CoreError("not_found", `No comment ${commentId} of yours`);
    const [post] = await tx
      .select({ authorId: posts.authorId })
      .from(posts)
      .where(eq(posts.id, gone.postId));
    await notifyTopics(tx, [
      userTopic(userId, "feed"),
      ...(post ? await reachTopics(tx, post.authorId) : []),
    ]);
  });
  return { ok: true };
}

function visiblePost(db: Executor, userId: string, postId: string) {
  return db
    .select({ id: posts.id })
    .from(posts)
    .where(and(eq(posts.id, postId), reachesPerson(userId)));
}

function toPostComment(
  row: typeof postComments.$inferSelect,
  authorName: string | null,
  userId: string,
): PostComment {
  return {
    id: row.id,
    postId: row.postId,
    authorName,
    mine: row.userId === userId,
    text: row.text,
    createdAt: row.createdAt.toISOString(),
  };
}
