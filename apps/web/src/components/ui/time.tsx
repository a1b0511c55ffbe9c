"use client";

import { useSyncExternalStore } from "react";
import {
  formatChatTime,
  formatFullTime,
  formatListTime,
  formatRelative,
  formatTime,
  writeForReader,
} from "../format";
import styles from "./time.module.css";

const noChanges = () => () => {};

/**
 * For a component that writes times (or numbers) with `format.ts`: call it first thing. While
 * the server renders and the browser hydrates, the component writes them in UTC and en-GB (the
 * server knows neither the reader's zone nor language, and hydration must write what the server
 * wrote); once the page is hydrated it renders again, in the reader's own. Says whether it is.
 */
export function useReaderTimes(): boolean {
  const hydrated = useSyncExternalStore(
    noChanges,
    () => true,
    () => false,
  );
  writeForReader(hydrated);
  return hydrated;
}

/** Once the page is hydrated, times rendered from then on are the reader's, wherever written. */
export function ReaderTimes() {
  useReaderTimes();
  return null;
}

/** One clock for every relative time on the page, ticking each 30 s (not a timer per time). */
let now = Date.now();
const listeners = new Set<() => void>();
let ticker: ReturnType<typeof setInterval> | null = null;
function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!ticker) now = Date.now();
  ticker ??= setInterval(() => {
    now = Date.now();
    for (const l of listeners) l();
  }, 30_000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = null;
    }
  };
}
const snapshot = () => now;
/** The server's clock is the request's (its module's `now` is when the process started). */
const serverSnapshot = () => (typeof window === "undefined" ? Date.now() : now);

/** The current time, re-rendering every 30 s. */
export function useNow(): Date {
  return new Date(useSyncExternalStore(subscribe, snapshot, serverSnapshot));
}

const wordings = { message: formatChatTime, list: formatListTime } as const;

/**
 * A time as chat apps show it ("now", "5 min", "Yesterday 18:02"), with the full local date and
 * time on hover (its title). A message's time (not a list row's, which has no room) also reads
 * in full while keyboard focus is in the message.
 */
export function RelativeTime({
  iso,
  style = "message",
  className,
}: {
  iso: string;
  style?: keyof typeof wordings;
  className?: string;
}) {
  const hydrated = useReaderTimes();
  const current = useNow();
  const full = formatFullTime(iso);
  return (
    // The server's "now" is not the browser's: hydration keeps the server's words (a mismatch
    // here is expected, and allowed), so the time is written afresh once the page is hydrated.
    <time
      key={hydrated ? "reader" : "server"}
      dateTime={iso}
      title={full}
      className={
        [style === "message" && styles.inFull, className].filter(Boolean).join(" ") || undefined
      }
      suppressHydrationWarning
      data-testid="relative-time"
    >
      {wordings[style](iso, current)}
    </time>
  );
}

/** How long ago (or until) a time is, "3 min ago", with its date and time on hover. */
export function TimeAgo({ iso }: { iso: string }) {
  return (
    // How long ago moves on between the server's render and the browser's.
    <time dateTime={iso} title={formatTime(iso)} suppressHydrationWarning>
      {formatRelative(iso)}
    </time>
  );
}
