import { Button } from "~/components/ui/button";

/** Loads the page before the oldest item shown (a paged list read newest first). */
export interface OlderPage {
  load: () => void;
  loading: boolean;
}

/** Loaded pages' items in order, each once: an item that moved between pages while they loaded. */
export function eachOnce<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.id) && Boolean(seen.add(item.id)));
}

/** An infinite query's next page as an `OlderPage`, or null when there is none. */
export function olderPageOf(query: {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}): OlderPage | null {
  if (!query.hasNextPage) return null;
  return {
    // A press wins over a live re-read in flight (TanStack's default, cancelRefetch: true);
    // with `false` the press would be dropped while the list re-reads.
    load: () => void query.fetchNextPage(),
    loading: query.isFetchingNextPage,
  };
}

/** "Show older …" under or above a paged list: a chat's messages, the inbox, a thread, the feed. */
export function ShowOlder({
  older,
  what,
  className,
  testId,
}: {
  older: OlderPage;
  /** What the list holds, in the plural ("messages"); none for a bare "Show older". */
  what?: string;
  className?: string;
  testId: string;
}) {
  const words = what ? ` ${what}` : "";
  return (
    <Button
      variant="secondary"
      small
      className={className}
      disabled={older.loading}
      onClick={older.load}
      data-testid={testId}
    >
      {older.loading ? `Loading older${words}…` : `Show older${words}`}
    </Button>
  );
}
