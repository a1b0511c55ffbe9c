"use client";

import { type QueryFilters, useQueryClient } from "@tanstack/react-query";
import { useSubscription } from "@trpc/tanstack-react-query";
import {
  createContext,
  type ReactNode,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import { useTRPC } from "~/trpc/client";
import { rereadFilter } from "./live-rereads";
import styles from "./live-updates.module.css";

/** Re-reads at most this often while changes keep coming (a streamed reply, a busy chat). */
const REFRESH_EVERY_MS = 150;
/** A link that drops is shown as reconnecting only after this long (a blip is not news). */
const RECONNECTING_AFTER_MS = 2000;

/** What the tab knows of its connection: the browser's network, and the live link. */
export interface Connection {
  /** The browser says it has a network. */
  online: boolean;
  /** live: wake-ups arrive; connecting: first connection; reconnecting: it was live and dropped. */
  link: "live" | "connecting" | "reconnecting";
}

const ConnectionContext = createContext<Connection>({ online: true, link: "connecting" });

export const useConnection = () => useContext(ConnectionContext);

const subscribeOnline = (onChange: () => void) => {
  window.addEventListener("online", onChange);
  window.addEventListener("offline", onChange);
  return () => {
    window.removeEventListener("online", onChange);
    window.removeEventListener("offline", onChange);
  };
};

/** The browser's own idea of whether it has a network (true while rendering on the server). */
export function useOnline(): boolean {
  return useSyncExternalStore(
    subscribeOnline,
    () => navigator.onLine,
    () => true,
  );
}

/**
 * Keeps every page of this tab current: the server wakes the tab whenever anything the person
 * sees changes (chats, cards, records, their agents' webhooks), naming what changed, and the tab
 * re-reads the queries of it (`rereadFilter`). Children read the connection's state
 * (`useConnection`) for the status dot, the banner and queued messages. `dataReadAt` is when the
 * server read the first page's data: the link re-reads it only if something changed since.
 */
export function LiveProvider({
  children,
  dataReadAt,
}: {
  children: ReactNode;
  dataReadAt: number;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // The first page's; later pages' data is read while the link is up, so it hears of changes.
  const [input] = useState({ since: dataReadAt });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  // What changed since the last re-read: "all", the changes named, or nothing yet.
  const changed = useRef<"all" | Set<string> | null>(null);
  const live = useSubscription(
    trpc.live.changes.subscriptionOptions(input, {
      onData: ({ changes }) => {
        const before = changed.current;
        changed.current =
          changes === null || before === "all" ? "all" : new Set([...(before ?? []), ...changes]);
        // While a fetch is running (say, the person paging back) the re-read waits for it
        // rather than cancelling it; it still runs after, so no change is missed.
        const flush = () => {
          if (queryClient.isFetching() > 0) {
            timer.current = setTimeout(flush, REFRESH_EVERY_MS);
            return;
          }
          timer.current = null;
          const burst = changed.current;
          changed.current = null;
          void queryClient.invalidateQueries(rereadFilter(trpc, burst === "all" ? null : burst));
        };
        timer.current ??= setTimeout(flush, REFRESH_EVERY_MS);
      },
    }),
  );
  const online = useOnline();
  const connected = live.status === "pending";
  const [wasLive, setWasLive] = useState(false);
  const [dropped, setDropped] = useState(false);
  useEffect(() => {
    if (connected) {
      setWasLive(true);
      setDropped(false);
      return;
    }
    const wait = setTimeout(() => setDropped(true), RECONNECTING_AFTER_MS);
    return () => clearTimeout(wait);
  }, [connected]);
  const link = connected ? "live" : wasLive && dropped ? "reconnecting" : "connecting";
  return (
    <ConnectionContext.Provider value={{ online, link }}>{children}</ConnectionContext.Provider>
  );
}

const labels = {
  live: "Updates arrive as they happen",
  connecting: "Connecting for live updates…",
  reconnecting: "Live updates are interrupted; reconnecting",
  offline: "You are offline",
};

/** A small dot with the live link's state, for the navigation. */
export function LiveUpdates() {
  const { online, link } = useConnection();
  const status = !online ? "offline" : link;
  return (
    <span
      className={`${styles.liveDot} ${styles[status] ?? ""}`}
      data-testid="live-status"
      title={labels[status]}
    >
      {status}
    </span>
  );
}

/**
 * Says plainly when the tab is cut off: offline (what the person sends waits and goes out when
 * the network is back), or reconnecting (what they see may be out of date until then).
 */
export function ConnectionBanner() {
  const { online, link } = useConnection();
  const message = !online
    ? "You're offline. Messages you write wait here and go out when you're back online."
    : link === "reconnecting"
      ? "Reconnecting… Live updates are paused, so what you see may be out of date."
      : null;
  return (
    <div className={styles.connectionBanner} role="status" data-testid="connection-banner">
      {message && <p className={online ? styles.warn : styles.off}>{message}</p>}
    </div>
  );
}

/**
 * Re-reads the queries of `filter` once at `at` (ms since the epoch): for figures that expire as
 * time passes (this minute's rates, today's counts), which no wake-up announces. A moment known
 * from the data, not a poll; null schedules nothing.
 */
export function useRereadAt(filter: QueryFilters, at: number | null) {
  const queryClient = useQueryClient();
  const latest = useRef(filter);
  latest.current = filter;
  useEffect(() => {
    if (at === null) return;
    const wait = setTimeout(
      () => void queryClient.invalidateQueries(latest.current),
      Math.max(0, at - Date.now()),
    );
    return () => clearTimeout(wait);
  }, [at, queryClient]);
}

/** The next midnight UTC after `now`: when the daily counts and charts roll over. */
export function nextUtcMidnight(now = Date.now()): number {
  const day = 86_400_000;
  return Math.floor(now / day) * day + day;
}
