"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useRef } from "react";
import { useTRPC } from "~/trpc/client";

/** Re-reads at most this often while changes keep coming (a streamed reply, a busy chat). */
const REFRESH_EVERY_MS = 150;

const labels = {
  live: "Updates arrive as they happen",
  connecting: "Connecting for live updates…",
  offline: "Live updates are interrupted; retrying",
};

/**
 * Keeps every page of this tab current: the server wakes the tab whenever anything the person
 * sees changes (chats, cards, records), and the tab re-reads what it shows. Renders whether the
 * live link is up.
 */
export function LiveUpdates() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const live = useSubscription(
    trpc.live.changes.subscriptionOptions(undefined, {
      onData: () => {
        // While a fetch is running (say, the person paging back) the re-read waits for it
        // rather than cancelling it; it still runs after, so no change is missed.
        const flush = () => {
          if (queryClient.isFetching() > 0) {
            timer.current = setTimeout(flush, REFRESH_EVERY_MS);
            return;
          }
          timer.current = null;
          void queryClient.invalidateQueries();
        };
        timer.current ??= setTimeout(flush, REFRESH_EVERY_MS);
      },
    }),
  );
  const status =
    live.status === "pending" ? "live" : live.status === "error" ? "offline" : "connecting";
  return (
    <span className={`live-dot ${status}`} data-testid="live-status" title={labels[status]}>
      {status}
    </span>
  );
}
