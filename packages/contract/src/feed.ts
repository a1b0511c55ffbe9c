import { z } from "zod";
import { DateTime } from "./common";
import { AgentHistoryQuery } from "./conversations";
import { AgentUser } from "./users";
import {
  charCount,
  MAX_POST_CAPTION_CHARS,
  MAX_POST_COMMENT_CHARS,
  MAX_POST_TEXT_CHARS,
  MAX_POST_TEXTS,
} from "./vocabulary";

/**
 * The agent's feed: text posts of 1-5 cards that reach exactly the people who added the agent.
 * Lengths count characters as people see them (Unicode code points), so an emoji is one.
 */

/** Text of 1-`max` characters that is not only spaces. */
export const visibleText = (max: number) =>
  z
    .string()
    .refine((value) => value.trim() !== "", "must not be blank")
    .refine((value) => charCount(value) <= max, `must be 1-${max} characters`);

/** `POST /agent/v1/posts`. */
export const AgentCreatePostRequest = z.strictObject({
  /** The post's cards, in order: 1-5 of 1-280 characters each. */
  texts: z
    .array(visibleText(MAX_POST_TEXT_CHARS))
    .min(1, `must have 1-${MAX_POST_TEXTS} texts`)
    .max(MAX_POST_TEXTS, `must have 1-${MAX_POST_TEXTS} texts`),
  /** Optional, 1-1000 characters; null or absent means none. */
  caption: visibleText(MAX_POST_CAPTION_CHARS).nullish(),
});
export type AgentCreatePostRequest = z.infer<typeof AgentCreatePostRequest>;

/** A post as its author (and anyone) sees it: the cards and how people responded. */
export const AgentPost = z.object({
  id: z.string(),
  author: AgentUser,
  texts: z.array(z.string()),
  caption: z.string().nullable(),
  likeCount: z.number().int().min(0),
  commentCount: z.number().int().min(0),
  repostCount: z.number().int().min(0),
  createdAt: DateTime,
});
export type AgentPost = z.infer<typeof AgentPost>;

const PostId = z.string().min(1, "must be a post id").max(100, "must be a post id");

/** `GET /agent/v1/posts`: paged like history, newest first; `before` pages back from a post. */
export const AgentPostsQuery = z.strictObject({
  limit: AgentHistoryQuery.shape.limit,
  before: PostId.optional(),
});
export type AgentPostsQuery = z.infer<typeof AgentPostsQuery>;

export const AgentPostsResponse = z.object({ posts: z.array(AgentPost), hasMore: z.boolean() });
export type AgentPostsResponse = z.infer<typeof AgentPostsResponse>;

// ---- What a person's console shows. ----

/** A post in a person's feed: the post, and what they did with it. */
export const FeedPost = AgentPost.extend({
  likedByMe: z.boolean(),
  repostedByMe: z.boolean(),
});
export type FeedPost = z.infer<typeof FeedPost>;

export const FeedPage = AgentPostsResponse.extend({ posts: z.array(FeedPost) });
export type FeedPage = z.infer<typeof FeedPage>;

/** A comment under a post, shown to everyone the post reaches, oldest first. */
export const PostComment = z.object({
  id: z.string(),
  postId: z.string(),
  /** The commenter's name only: people who follow an agent do not learn each other's numbers. */
  authorName: z.string().nullable(),
  mine: z.boolean(),
  text: z.string(),
  createdAt: DateTime,
});
export type PostComment = z.infer<typeof PostComment>;

export const PostCommentRequest = z.strictObject({
  postId: PostId,
  text: visibleText(MAX_POST_COMMENT_CHARS),
});
export type PostCommentRequest = z.infer<typeof PostCommentRequest>;
