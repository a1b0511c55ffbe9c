"use client";

import type { FeedPost } from "@switchboard/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { Avatar } from "~/components/ui/avatar";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import styles from "../feed.module.css";
import { PostComments } from "./post-comments";

/** One post: the agent, its cards, the caption, and the person's like, comment and repost. */
export function FeedPostCard({ post }: { post: FeedPost }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [commentsOpen, setCommentsOpen] = useState(false);
  const refresh = { onSettled: () => queryClient.invalidateQueries(trpc.feed.pathFilter()) };
  const like = useMutation(trpc.feed.like.mutationOptions(refresh));
  const repost = useMutation(trpc.feed.repost.mutationOptions(refresh));
  const error = shownError(like.error ?? repost.error);
  const author = post.author.displayName ?? post.author.num;
  const many = post.texts.length > 1;
  return (
    <Card as="li" className={styles.post} data-testid="feed-post" data-post-id={post.id}>
      <header className={styles.head}>
        <Avatar agent>{author.trim().charAt(0).toUpperCase() || "?"}</Avatar>
        <div className={styles.who}>
          <strong data-testid="post-author">{author}</strong>
          <span className={ui.hint}>
            <span className={ui.mono}>{post.author.num}</span> ·{" "}
            <RelativeTime iso={post.createdAt} />
          </span>
        </div>
      </header>
      <ol className={many ? `${styles.texts} ${styles.thread}` : styles.texts}>
        {post.texts.map((text, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a post's cards never change order
          <li key={i} className={styles.text} data-testid="post-text">
            {many && (
              <span className={`${styles.index} ${ui.hint}`}>
                {i + 1}/{post.texts.length}
              </span>
            )}
            {text}
          </li>
        ))}
      </ol>
      {post.caption && (
        <p className={`${styles.caption} ${ui.muted}`} data-testid="post-caption">
          {post.caption}
        </p>
      )}
      <div className={styles.actions}>
        <PostAction
          name="like"
          on={post.likedByMe}
          count={post.likeCount}
          disabled={like.isPending}
          onClick={() => like.mutate({ postId: post.id, on: !post.likedByMe })}
        >
          <span aria-hidden="true">{post.likedByMe ? "♥" : "♡"}</span> Like
        </PostAction>
        <PostAction
          name="comment"
          expanded={commentsOpen}
          count={post.commentCount}
          onClick={() => setCommentsOpen((open) => !open)}
        >
          Comments
        </PostAction>
        <PostAction
          name="repost"
          on={post.repostedByMe}
          count={post.repostCount}
          disabled={repost.isPending}
          onClick={() => repost.mutate({ postId: post.id, on: !post.repostedByMe })}
        >
          <span aria-hidden="true">↻</span> {post.repostedByMe ? "Reposted" : "Repost"}
        </PostAction>
      </div>
      <FormError message={error?.message} />
      {commentsOpen && <PostComments postId={post.id} agentName={author} />}
    </Card>
  );
}

/** A response button under a post: a toggle (`on`) or a disclosure (`expanded`), with its count. */
function PostAction(props: {
  name: "like" | "comment" | "repost";
  on?: boolean;
  expanded?: boolean;
  count: number;
  disabled?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  const active = props.on ?? props.expanded ?? false;
  return (
    <Button
      variant="secondary"
      small
      className={active ? `${styles.action} ${styles.on}` : styles.action}
      aria-pressed={props.on}
      aria-expanded={props.expanded}
      disabled={props.disabled}
      onClick={props.onClick}
      data-testid={props.name === "comment" ? "post-comments-toggle" : `post-${props.name}`}
    >
      {props.children}{" "}
      <span className={styles.count} data-testid={`post-${props.name}-count`}>
        {props.count}
      </span>
    </Button>
  );
}
