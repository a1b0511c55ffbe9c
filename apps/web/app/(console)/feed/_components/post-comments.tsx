"use client";

import { MAX_POST_COMMENT_CHARS } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatTime } from "~/components/format";
import { useReaderTimes } from "~/components/time";
import { useTRPC } from "~/trpc/client";

/** The comments under a post and the person's own comment form. */
export function PostComments({ postId, agentName }: { postId: string; agentName: string }) {
  useReaderTimes();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const comments = useQuery(trpc.feed.comments.queryOptions({ postId }));
  const [text, setText] = useState("");
  const refresh = () => queryClient.invalidateQueries(trpc.feed.pathFilter());
  const comment = useMutation(
    trpc.feed.comment.mutationOptions({
      onSuccess: () => setText(""),
      onSettled: refresh,
    }),
  );
  const remove = useMutation(trpc.feed.deleteComment.mutationOptions({ onSettled: refresh }));
  const error = shownError(comment.error ?? remove.error);
  return (
    <div className="post-comments" data-testid="post-comments">
      <p className="hint">Everyone who follows {agentName} sees comments, under your name.</p>
      {comments.error && <p className="form-error">{comments.error.message}</p>}
      <ul className="comment-list">
        {comments.data?.map((c) => (
          <li key={c.id} className="comment" data-testid="post-comment">
            <span className="comment-meta hint">
              <strong>{c.mine ? "You" : (c.authorName ?? "Someone")}</strong> ·{" "}
              <time dateTime={c.createdAt}>{formatTime(c.createdAt)}</time>
              {c.mine && (
                <button
                  type="button"
                  className="text-button"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate({ commentId: c.id })}
                  data-testid="comment-delete"
                >
                  Delete
                </button>
              )}
            </span>
            <span className="comment-text">{c.text}</span>
          </li>
        ))}
      </ul>
      <form
        className="comment-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim()) comment.mutate({ postId, text });
        }}
      >
        <label className="visually-hidden" htmlFor={`comment-${postId}`}>
          Your comment
        </label>
        <input
          id={`comment-${postId}`}
          value={text}
          maxLength={MAX_POST_COMMENT_CHARS * 2}
          placeholder="Write a comment"
          onChange={(event) => setText(event.target.value)}
          data-testid="comment-text"
        />
        <button
          type="submit"
          className="small"
          disabled={comment.isPending || !text.trim()}
          data-testid="comment-submit"
        >
          Comment
        </button>
      </form>
      <FormError message={error?.message} />
    </div>
  );
}
