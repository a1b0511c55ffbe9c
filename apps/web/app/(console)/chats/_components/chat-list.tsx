"use client";

import {
  keepPreviousData,
  notifyManager,
  useInfiniteQuery,
  useQueryClient,
} from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { eachOnce } from "~/components/paged-list";
import { splitList } from "~/components/split-view";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import type { RouterOutputs } from "~/trpc/router";
import { AgentAvatar } from "./agent-avatar";
import styles from "./chat.module.css";
import { messagePreview } from "./message-preview";

/** A row of the list; the open chat, shown before its page is loaded, has no card count. */
type ChatRow = Omit<RouterOutputs["chats"]["list"]["chats"][number], "pendingCards"> & {
  pendingCards?: number;
};

/** How long typing in the search waits before asking the server. */
const SEARCH_AFTER_MS = 200;

/**
 * The person's chats, newest activity first (kept live by the console), a page at a time: the
 * next page loads as the end of the list scrolls into view, or from its "Show more" button.
 * The open chat is marked, and shown even when its page is not loaded yet. A search by the
 * agent's name or number asks the server (the list may not be loaded whole); a chat with cards
 * waiting for the person says so (the count is the server's, re-read on each card's change).
 */
export function ChatList() {
  const trpc = useTRPC();
  const [typed, setTyped] = useState("");
  const search = useSettled(typed.trim(), SEARCH_AFTER_MS);
  const list = useInfiniteQuery(
    trpc.chats.list.infiniteQueryOptions(search ? { search } : {}, {
      getNextPageParam: (last) => last.nextCursor,
      placeholderData: keepPreviousData,
    }),
  );
  const open = useOpenChat();
  const loaded = eachOnce(list.data?.pages.flatMap((page) => page.chats) ?? []);
  const rows: ChatRow[] = search ? loaded : withOpenChat(loaded, open.chat);
  const openId = open.chat?.id ?? open.ref;
  return (
    <aside className={splitList.list} aria-labelledby="chat-list-heading">
      <div className={splitList.head}>
        <h2 id="chat-list-heading">Chats</h2>
      </div>
      <Link href="/chats/add" className={styles.add} data-testid="chat-add">
        + Add an agent
      </Link>
      <input
        type="search"
        className={styles.search}
        aria-label="Search chats by name or number"
        placeholder="Search chats"
        maxLength={100}
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
        data-testid="chat-search"
      />
      {list.error && <p className={ui.formError}>{list.error.message}</p>}
      {list.data && rows.length === 0 && (
        <p className={`${ui.hint} ${splitList.empty}`} data-testid="chat-list-empty">
          {search
            ? `No chat with an agent named “${search}”.`
            : "No chats yet. Add an agent by its 800 number."}
        </p>
      )}
      <ul data-testid="chat-list" aria-busy={list.isFetchingNextPage}>
        {rows.map((chat) => (
          <li key={chat.id}>
            <ChatRowLink chat={chat} current={chat.id === openId} />
          </li>
        ))}
        {list.hasNextPage && (
          <li>
            <MoreChats
              pages={list.data?.pages.length ?? 0}
              busy={list.isFetching}
              loading={list.isFetchingNextPage}
              onMore={() => void list.fetchNextPage({ cancelRefetch: false })}
            />
          </li>
        )}
      </ul>
    </aside>
  );
}

function ChatRowLink({ chat, current }: { chat: ChatRow; current: boolean }) {
  return (
    <Link
      href={`/chats/${chat.id}`}
      className={`${splitList.row} ${styles.chatRow}`}
      aria-current={current ? "page" : undefined}
      data-testid="chat-row"
    >
      <AgentAvatar agent={chat.agent} className={styles.rowAvatar} />
      <span className={styles.rowName}>
        <span className={ui.truncate} title={chat.agent.displayName ?? chat.agent.num}>
          {chat.agent.displayName ?? chat.agent.num}
        </span>
        {(chat.pendingCards ?? 0) > 0 && (
          <Badge tone="warn" className={styles.pending} data-testid="chat-pending">
            Decide
            <span className={ui.visuallyHidden}>
              : {chat.pendingCards} {chat.pendingCards === 1 ? "card needs" : "cards need"} your
              decision
            </span>
          </Badge>
        )}
        {chat.unreadCount > 0 && (
          <Badge className={styles.unread} data-testid="chat-unread">
            {chat.unreadCount}
            <span className={ui.visuallyHidden}> unread</span>
          </Badge>
        )}
      </span>
      <span className={styles.rowLine}>
        <span className={styles.rowPreview} data-testid="chat-row-preview">
          {rowLine(chat)}
        </span>
        {chat.lastMessageAt && (
          <RelativeTime iso={chat.lastMessageAt} style="list" className={styles.rowTime} />
        )}
      </span>
    </Link>
  );
}

/**
 * The end of the loaded list: a button that loads the next page, pressed for the person while it
 * is in view (it stays for keyboards, and where observing is not possible). `pages` is how many
 * are loaded: seeing the end counts for that many only, so a page that arrives while the old
 * end was in view loads no other unless the new end is in view too; `busy` (any read of the
 * list in flight) holds the next page back until that read is done, a press included: a live
 * re-read of the list may be running when the person presses, and the press still counts.
 */
function MoreChats({
  pages,
  busy,
  loading,
  onMore,
}: {
  pages: number;
  busy: boolean;
  loading: boolean;
  onMore: () => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const [endSeenAt, setEndSeenAt] = useState<number | null>(null);
  useEffect(() => {
    const target = button.current;
    if (!target || typeof IntersectionObserver === "undefined") return;
    // A new observer per page loaded: it reports at once whether the end is (still) in view.
    const observer = new IntersectionObserver(
      (entries) => setEndSeenAt(entries.some((entry) => entry.isIntersecting) ? pages : null),
      { rootMargin: "200px 0px" },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [pages]);
  const [pressedAt, setPressedAt] = useState<number | null>(null);
  const more = useRef(onMore);
  more.current = onMore;
  useEffect(() => {
    if ((endSeenAt === pages || pressedAt === pages) && !busy) {
      setPressedAt(null);
      more.current();
    }
  }, [endSeenAt, pressedAt, pages, busy]);
  const waiting = loading || pressedAt === pages;
  return (
    <Button
      ref={button}
      variant="secondary"
      className={styles.more}
      disabled={waiting}
      onClick={() => setPressedAt(pages)}
      data-testid="chat-more"
    >
      {waiting ? "Loading more chats…" : "Show more chats"}
    </Button>
  );
}

/** `value` once it has stayed the same for `ms` (the first value at once). */
function useSettled(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The chat open beside the list: its id (the URL may name the agent's number instead) and, once
 * the chat view's own query has it, the chat. Only watched here, never asked for: an observer
 * made here would put an empty entry in the cache before the page's data is handed over, and
 * the page would then render without it.
 */
function useOpenChat(): { ref: string | undefined; chat: ChatRow | undefined } {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ref = useParams<{ conversationId?: string }>().conversationId;
  const read = () =>
    ref
      ? queryClient.getQueryData(trpc.chats.page.infiniteQueryKey({ chat: ref }))?.pages[0]
          ?.conversation
      : undefined;
  const chat = useSyncExternalStore(
    (onChange) => queryClient.getQueryCache().subscribe(notifyManager.batchCalls(onChange)),
    read,
    read,
  );
  return { ref, chat };
}

/**
 * The loaded rows, with the open chat after them when its page is not loaded yet (an old chat
 * opened by a link): it sorts after everything loaded, so the end of the list is its place.
 */
function withOpenChat(rows: ChatRow[], open: ChatRow | undefined): ChatRow[] {
  if (!open || rows.some((chat) => chat.id === open.id)) return rows;
  return [...rows, open];
}

function rowLine(chat: ChatRow): string {
  if (chat.blocked) return "Blocked";
  if (chat.agentTypingUntil && Date.parse(chat.agentTypingUntil) > Date.now()) return "typing…";
  if (!chat.isContact) return "Not in your contacts";
  const last = chat.lastMessage;
  return last ? messagePreview(last, last.senderId === chat.agent.id) : chat.agent.num;
}
