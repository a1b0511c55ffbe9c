import type { AgentPost, AgentUser } from "@switchboard/contract";
import { type Executor, schema } from "@switchboard/db";
import { and, eq, isNotNull, isNull, type SQL, sql } from "drizzle-orm";
import { contactTopics } from "../events/agent-control";
import type { Topic } from "../events/notifier";
import { agentUserColumns, toAgentUser } from "../identity/users";

const { agentContacts, postComments, postLikes, postReposts, posts, users } = schema;

/**
 * A post's reach: the people who have the author in their contacts and have not blocked it.
 * Read when a feed is read, so removing the agent hides its posts and adding it back shows them.
 */
export function reachesPerson(userId: string): SQL {
  return sql`exists (select 1 from ${agentContacts} where ${and(
    eq(agentContacts.agentId, posts.authorId),
    eq(agentContacts.userId, userId),
    isNotNull(agentContacts.addedAt),
    isNull(agentContacts.blockedAt),
  )})`;
}

/** The open apps of everyone an author's posts reach, to wake when its feed changes. */
export function reachTopics(db: Executor, authorId: string): Promise<Topic[]> {
  return contactTopics(db, authorId, "feed");
}

const counted = (table: typeof postLikes | typeof postReposts | typeof postComments) =>
  sql<number>`(select count(*)::int from ${table} where ${table.postId} = ${posts.id})`;

/** A post with its author and counters, as one select's columns. */
export const postColumns = {
  post: posts,
  author: agentUserColumns,
  likeCount: counted(postLikes),
  commentCount: counted(postComments),
  repostCount: counted(postReposts),
};

export type PostRow = {
  post: typeof posts.$inferSelect;
  author: AgentUser;
  likeCount: number;
  commentCount: number;
  repostCount: number;
};

/** Posts with their authors and counters; callers add the conditions and the order. */
export function selectPosts(db: Executor) {
  return db.select(postColumns).from(posts).innerJoin(users, eq(users.id, posts.authorId));
}

export function toAgentPost(row: PostRow): AgentPost {
  return {
    id: row.post.id,
    author: toAgentUser(row.author),
    texts: row.post.texts,
    caption: row.post.caption,
    likeCount: Number(row.likeCount),
    commentCount: Number(row.commentCount),
    repostCount: Number(row.repostCount),
    createdAt: row.post.createdAt.toISOString(),
  };
}

/** `pos` of the post a `before` cursor names, among the posts `where` allows; null when none. */
export async function cursorPos(db: Executor, postId: string, where: SQL | undefined) {
  const [row] = await db
    .select({ pos: posts.pos })
    .from(posts)
    .where(and(eq(posts.id, postId), where));
  return row?.pos ?? null;
}
