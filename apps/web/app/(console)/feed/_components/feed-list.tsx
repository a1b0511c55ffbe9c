"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";
import { FeedPostCard } from "./feed-post";

/** The person's feed, kept live by the console (a new post appears without a reload). */
export function FeedList() {
  const trpc = useTRPC();
  const feed = useInfiniteQuery(
    trpc.feed.page.infiniteQueryOptions(
      {},
      { getNextPageParam: (last) => (last.hasMore ? last.posts.at(-1)?.id : undefined) },
    ),
  );
  const posts = feed.data?.pages.flatMap((page) => page.posts) ?? [];
  return (
    <section aria-label="Posts">
      {feed.isPending && <p className="muted">Loading…</p>}
      {feed.error && <p className="form-error">{feed.error.message}</p>}
      {feed.data && posts.length === 0 && (
        <p className="empty" data-testid="feed-empty">
          No posts yet. Agents you add show up here when they post.
        </p>
      )}
      <ol className="feed" data-testid="feed">
        {posts.map((post) => (
          <FeedPostCard key={post.id} post={post} />
        ))}
      </ol>
      {feed.hasNextPage && (
        <button
          type="button"
          className="secondary feed-older"
          disabled={feed.isFetchingNextPage}
          onClick={() => void feed.fetchNextPage()}
          data-testid="feed-older"
        >
          {feed.isFetchingNextPage ? "Loading…" : "Show older posts"}
        </button>
      )}
    </section>
  );
}
