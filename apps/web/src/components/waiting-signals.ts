"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC } from "~/trpc/client";
import { useRereadAt } from "./live-updates";
import { countRereadAt, titleWithCount } from "./waiting-count";

/**
 * How many cards wait on the person, kept current: the live link re-reads it whenever a card is
 * proposed, decided or expires (a `chat` change), and it is read again when the first card runs
 * out of time. The tab's title and the app's icon follow it.
 */
export function useWaitingCount(): number {
  const trpc = useTRPC();
  const { data } = useQuery(trpc.chats.waitingCount.queryOptions());
  useRereadAt(trpc.chats.waitingCount.queryFilter(), countRereadAt(data?.nextExpiresAt ?? null));
  const count = data?.count ?? 0;
  useAppBadge(count);
  useTitleCount(count);
  return count;
}

/** The number on the installed app's icon (the Badging API, where the browser has it). */
function useAppBadge(count: number) {
  useEffect(() => {
    if (!("setAppBadge" in navigator)) return;
    const done = count > 0 ? navigator.setAppBadge(count) : navigator.clearAppBadge();
    // Refused when the app is not installed or may not badge: the title still says it.
    done.catch(() => {});
  }, [count]);
}

/**
 * "(3) Chats · Switchboard": the count before whatever title the page renders. Pages keep their
 * own `<title>` elements (React's, hoisted into the head); this writes the count into the one the
 * browser shows, and again whenever React replaces or rewrites it on a navigation. It remembers
 * what it wrote, so any other title is the page's own, whatever it starts with.
 */
function useTitleCount(count: number) {
  useEffect(() => {
    let base = document.title;
    let written: string | null = null;
    const apply = () => {
      // No title yet (a navigation between removing one and adding the next): setting one
      // now would add an element of our own ahead of the page's.
      if (!document.head.querySelector("title")) return;
      if (document.title !== written) base = document.title;
      written = titleWithCount(base, count);
      if (document.title !== written) document.title = written;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      if (document.title === written) document.title = base;
    };
  }, [count]);
}
