"use client";

import { useEffect, useRef, useSyncExternalStore } from "react";
import { type ConsoleMutation, sendNow } from "~/trpc/client";
import { shownError } from "../errors";
import styles from "./undo.module.css";

/** How long a removal waits for Undo before it is sent. */
export const UNDO_MS = 5000;

/** A removal that waits `UNDO_MS` for Undo before it is sent (`useUndo().offer`). */
export interface Undoable {
  /** What the person did, as done: "Deleted “Buy milk”." */
  message: string;
  /** What it hides meanwhile and while it is sent ("record:<id>"; `useUndo().hides`). */
  hides: string;
  /** The removal itself (`consoleMutation`), sent by `sendNow`, so a tab going away still sends it. */
  call: ConsoleMutation;
  /** Re-reads what the removal changed, once it was sent. */
  after: () => Promise<unknown>;
  /** Said when sending failed: "Could not delete “Buy milk”". */
  failure: string;
  /** Where focus goes after Undo when the snackbar had it (the thing is back on the page). */
  focusAfterUndo?: () => HTMLElement | null;
}

interface Entry extends Undoable {
  id: number;
  state: "waiting" | "sending" | "failed";
  error?: string;
}

/*
 * The tab's removals, one store for every page: moving to another console page keeps a window
 * running (the snackbar, in the console's layout, goes along).
 */
let entries: Entry[] = [];
let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();
const listeners = new Set<() => void>();
const none: Entry[] = [];

function set(next: Entry[]) {
  entries = next;
  for (const listener of listeners) listener();
}
const update = (id: number, change: Partial<Entry>) =>
  set(entries.map((entry) => (entry.id === id ? { ...entry, ...change } : entry)));
const drop = (id: number) => set(entries.filter((entry) => entry.id !== id));

/** Sends a waiting removal now (its window passed, Escape, or the tab is going away). */
function send(id: number) {
  const entry = entries.find((each) => each.id === id);
  if (entry?.state !== "waiting") return;
  clearTimeout(timers.get(id));
  timers.delete(id);
  update(id, { state: "sending" });
  sendNow(entry.call)
    .then(entry.after)
    .then(
      () => drop(id),
      (error: unknown) =>
        update(id, { state: "failed", error: shownError(error)?.message ?? String(error) }),
    );
}

function offer(undoable: Undoable) {
  const id = nextId++;
  timers.set(
    id,
    setTimeout(() => send(id), UNDO_MS),
  );
  set([...entries, { ...undoable, id, state: "waiting" }]);
}

/** Undo: nothing is sent; the thing shows again. */
function undo(entry: Entry, hadFocus: boolean) {
  clearTimeout(timers.get(entry.id));
  timers.delete(entry.id);
  drop(entry.id);
  // The thing is back on the next render; give it focus then.
  if (hadFocus) setTimeout(() => entry.focusAfterUndo?.()?.focus(), 0);
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const useEntries = () =>
  useSyncExternalStore(
    subscribe,
    () => entries,
    () => none,
  );

/**
 * The console's undo for removals (decision 0069): `offer` one, and hide what `hides(key)` names
 * until it is undone (shown again) or sent (gone, once the page re-reads).
 */
export function useUndo() {
  const all = useEntries();
  return {
    offer,
    hides: (key: string) => all.some((entry) => entry.hides === key && entry.state !== "failed"),
  };
}

/**
 * The snackbar of waiting removals, once in the console's layout: each says what was done, with
 * an Undo button, for `UNDO_MS`; only then is the request sent, and Undo sends nothing. A tab
 * that closes or reloads sends what waits at once (as the person asked; `sendNow`'s requests
 * start in the `pagehide` handler and outlive the page). A polite status region above the phone's tab bar; Undo is a real button
 * (Tab reaches it, and it takes focus when the removed thing had it), Escape in it sends now.
 */
export function UndoSnackbar() {
  const all = useEntries();
  const region = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const sendAll = () => {
      for (const entry of entries) send(entry.id);
    };
    window.addEventListener("pagehide", sendAll);
    return () => window.removeEventListener("pagehide", sendAll);
  }, []);

  // The removed thing took focus with it: give focus to the newest Undo, not to the page's body.
  const newest = all.at(-1);
  useEffect(() => {
    if (newest?.state !== "waiting") return;
    if (document.activeElement === document.body || document.activeElement === null)
      region.current?.querySelector<HTMLElement>(`[data-undo-id="${newest.id}"]`)?.focus();
  }, [newest]);

  return (
    <div
      ref={region}
      className={styles.region}
      role="status"
      aria-live="polite"
      data-testid="undo-region"
    >
      {all.map((entry) => (
        // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in one snackbar
        <div
          key={entry.id}
          className={styles.snackbar}
          data-testid="undo-snackbar"
          onKeyDown={(event) => {
            if (event.key !== "Escape") return;
            event.preventDefault();
            if (entry.state === "failed") drop(entry.id);
            else send(entry.id);
          }}
        >
          <span className={styles.message}>
            {entry.state === "failed" ? `${entry.failure}: ${entry.error}` : entry.message}
          </span>
          {entry.state === "waiting" && (
            <button
              type="button"
              className={styles.action}
              data-undo-id={entry.id}
              data-testid="undo"
              onClick={() => undo(entry, region.current?.contains(document.activeElement) ?? false)}
            >
              Undo
            </button>
          )}
          {entry.state === "failed" && (
            <button
              type="button"
              className={styles.action}
              data-testid="undo-dismiss"
              onClick={() => drop(entry.id)}
            >
              Dismiss
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
