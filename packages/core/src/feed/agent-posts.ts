import type { AgentPost, AgentPostsQuery, AgentPostsResponse } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, lt } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics } from "../events/notifier";
import { cursorPos, reachTopics, selectPosts, toAgentPost } from "./post-shape";

const { posts } = schema;

const noSuchPost = (postId: string) => new CoreError("not_found", `No post ${postId}`);

/**
 * `GET /posts`: the agent's own posts, newest first, `limit` at a time; `before` (one of its
 * posts) pages back from that post; `hasMore` says older ones exist.
 */
export async function listAgentPosts(
  deps: CoreDeps,
  agentId: string,
  query: AgentPostsQuery,
): Promise<AgentPostsResponse> {
  const own = eq(posts.authorId, agentId);
  const before = query.before === undefined ? null : await cursorPos(deps.db, query.before, own);
  if (query.before !== undefined && before === null) throw noSuchPost(query.before);
  const rows = await selectPosts(deps.db)
    .where(and(own, before === null ? undefined : lt(posts.pos, before)))
    .orderBy(desc(posts.pos))
    .limit(query.limit + 1);
  return {
    posts: rows.slice(0, query.limit).map(toAgentPost),
    hasMore: rows.length > query.limit,
  };
}

/** `GET /posts/{postId}`: one of the agent's own posts; anyone else's is as unknown as none. */
export async function getAgentPost(
  deps: CoreDeps,
  agentId: string,
  postId: string,
): Promise<AgentPost> {
  const [row] = await selectPosts(deps.db).where(
    and(eq(posts.id, postId), eq(posts.authorId, agentId)),
  );
  if (!row) throw noSuchPost(postId);
  return toAgentPost(row);
}

/**
 * `DELETE /posts/{postId}`: the post goes with its likes, reposts and comments, from every feed
 * at once (open feeds are woken to re-read).
 */
export async function deleteAgentPost(
  deps: CoreDeps,
  agentId: string,
  postId: string,
): Promise<{ ok: true }> {
  await deps.db.transaction(async (tx) => {
    const gone = await tx
      .delete(posts)
      .where(and(eq(posts.id, postId), eq(posts.authorId, agentId)))
      .returning({ id: posts.id });
    if (gone.length === 0) throw noSuchPost(postId);
    await notifyTopics(tx, await reachTopics(tx, agentId));
  });
  return { ok: true };
}
