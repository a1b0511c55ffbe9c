"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import { useTRPC } from "~/trpc/client";

/**
 * Keeps every chat query of this tab current: the server wakes the tab whenever anything the
 * person sees changes, and the tab re-reads its chats. Returns whether the live link is up.
 */
export function useLiveChats(): "live" | "connecting" | "offline" {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const live = useSubscription(
    trpc.chats.live.subscriptionOptions(undefined, {
      onData: () => void queryClient.invalidateQueries({ queryKey: trpc.chats.pathKey() }),
    }),
  );
  if (live.status === "pending") return "live";
  return live.status === "error" ? "offline" : "connecting";
}
