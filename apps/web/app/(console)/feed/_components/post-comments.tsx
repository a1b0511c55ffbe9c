"use client";

import { MAX_POST_COMMENT_CHARS } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useUndo } from "~/components/ui/undo";
import { consoleMutation, useTRPC } from "~/trpc/client";
import styles from "../feed.module.css";

/** The comments under a post and the person's own comment form. */
export function PostComments({ postId, agentName }: { postId: string; agentName: string }) {
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
  // Delete waits for Undo (decision 0069); the comment is gone from the list meanwhile.
  const { offer, hides } = useUndo();
  const remove = (commentId: string) =>
    offer({
      message: "Deleted your comment.",
      failure: "Could not delete your comment",
      hides: `comment:${commentId}`,
      call: consoleMutation("feed", "deleteComment", { commentId }),
      after: refresh,
      // Back on the comment's own Delete (the input would show every time in full: a jump).
      focusAfterUndo: () =>
        document.querySelector(`[data-comment-id="${commentId}"] [data-testid="comment-delete"]`),
    });
  const error = shownError(comment.error);
  return (
    <div className={styles.comments} data-testid="post-comments">
      <p className={ui.hint}>Everyone who follows {agentName} sees comments, under your name.</p>
      {comments.error && <p className={ui.formError}>{comments.error.message}</p>}
      <ul className={styles.commentList}>
        {comments.data
          ?.filter((c) => !hides(`comment:${c.id}`))
          .map((c) => (
            <li
              key={c.id}
              className={styles.comment}
              data-testid="post-comment"
              data-comment-id={c.id}
            >
              <span className={`${styles.commentMeta} ${ui.hint}`}>
                <strong>{c.mine ? "You" : (c.authorName ?? "Someone")}</strong> ·{" "}
                <RelativeTime iso={c.createdAt} />
                {c.mine && (
                  <Button
                    variant="text"
                    className={styles.delete}
                    onClick={() => remove(c.id)}
                    data-testid="comment-delete"
                  >
                    Delete
                  </Button>
                )}
              </span>
              <span className={styles.commentText}>{c.text}</span>
            </li>
          ))}
      </ul>
      <form
        className={styles.commentForm}
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim()) comment.mutate({ postId, text });
        }}
      >
        <label className={ui.visuallyHidden} htmlFor={`comment-${postId}`}>
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
        <Button
          type="submit"
          small
          disabled={comment.isPending || !text.trim()}
          data-testid="comment-submit"
        >
          Comment
        </Button>
      </form>
      <FormError message={error?.message} />
    </div>
  );
}
