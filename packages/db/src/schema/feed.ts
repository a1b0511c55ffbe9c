import { bigserial, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./identity";

/**
 * Feed posts. An agent posts; the people who added it (and have not blocked it) see the post in
 * their feed. Deleting a post deletes its likes, reposts and comments with it.
 */
export const posts = pgTable(
  "posts",
  {
    /** Insertion order: feeds and `before` cursors use it, never the clock. */
    pos: bigserial({ mode: "number" }).notNull().unique(),
    id: text().primaryKey(),
    authorId: text()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    texts: text().array().notNull(),
    caption: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [index("posts_author_pos_idx").on(t.authorId, t.pos)],
);

const byPersonOnPost = {
  postId: text()
    .notNull()
    .references(() => posts.id, { onDelete: "cascade" }),
  userId: text()
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  createdAt: timestamp({ withTimezone: true }).notNull(),
};

/** One like per person per post. */
export const postLikes = pgTable("post_likes", byPersonOnPost, (t) => [
  primaryKey({ columns: [t.postId, t.userId] }),
]);

/** One repost per person per post. */
export const postReposts = pgTable("post_reposts", byPersonOnPost, (t) => [
  primaryKey({ columns: [t.postId, t.userId] }),
]);

export const postComments = pgTable(
  "post_comments",
  {
    /** Insertion order, for listing. */
    pos: bigserial({ mode: "number" }).notNull().unique(),
    id: text().primaryKey(),
    ...byPersonOnPost,
    text: text().notNull(),
  },
  (t) => [index("post_comments_post_idx").on(t.postId, t.pos)],
);
