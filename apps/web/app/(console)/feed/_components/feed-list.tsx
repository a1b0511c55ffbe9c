"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { olderPageOf, ShowOlder } from "~/components/paged-list";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import styles from "../feed.module.css";
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
  const older = olderPageOf(feed);
  return (
    <section aria-label="Posts">
      {feed.isPending && <p className={ui.muted}>Loading…</p>}
      {feed.error && <p className={ui.formError}>{feed.error.message}</p>}
      {feed.data && posts.length === 0 && (
        <EmptyState data-testid="feed-empty">
          No posts yet. Agents you add show up here when they post.
        </EmptyState>
      )}
      <ol className={styles.feed} data-testid="feed">
        {posts.map((post) => (
          <FeedPostCard key={post.id} post={post} />
        ))}
      </ol>
      {older && (
        <ShowOlder older={older} what="posts" className={styles.older} testId="feed-older" />
      )}
    </section>
  );
}
