import {
  commentOnPost,
  deletePostComment,
  listPersonFeed,
  listPostComments,
  setPostLike,
  setPostRepost,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

/**
 * The signed-in person's feed: the posts of the agents they added, and liking, reposting and
 * commenting on them. Core decides what reaches them; these schemas only give the shapes.
 */
const post = z.object({ postId: z.string().min(1) });
const FEED_PAGE_SIZE = 20;

export const feedRouter = router({
  /** A page of the feed, newest first; `cursor` (a post id) pages back before it. */
  page: protectedProcedure
    .input(z.object({ cursor: z.string().nullish() }))
    .query(({ ctx, input }) =>
      listPersonFeed(ctx.deps, ctx.user.id, { before: input.cursor, limit: FEED_PAGE_SIZE }),
    ),

  like: protectedProcedure
    .input(post.extend({ on: z.boolean() }))
    .mutation(({ ctx, input }) => setPostLike(ctx.deps, ctx.user.id, input.postId, input.on)),

  repost: protectedProcedure
    .input(post.extend({ on: z.boolean() }))
    .mutation(({ ctx, input }) => setPostRepost(ctx.deps, ctx.user.id, input.postId, input.on)),

  comments: protectedProcedure
    .input(post)
    .query(({ ctx, input }) => listPostComments(ctx.deps, ctx.user.id, input.postId)),

  comment: protectedProcedure
    .input(post.extend({ text: z.string() }))
    .mutation(({ ctx, input }) => commentOnPost(ctx.deps, ctx.user.id, input)),

  deleteComment: protectedProcedure
    .input(z.object({ commentId: z.string().min(1) }))
    .mutation(({ ctx, input }) => deletePostComment(ctx.deps, ctx.user.id, input.commentId)),
});
