import { matchQuery, type Query, type QueryFilters } from "@tanstack/react-query";
import type { useTRPC } from "~/trpc/client";

type TRPC = ReturnType<typeof useTRPC>;

/**
 * What the tab re-reads when a wake-up names what changed (decision 0043): one entry per kind of
 * change core names (`PersonChange` in core's notifier), each the queries that show it. Only
 * queries a page has open are refetched; the rest are marked stale for when they are shown.
 * Frequent changes (a chat, a read mark, a webhook delivery, an agent's usage) are narrow; rare
 * ones (a setting, a pause) re-read a whole section.
 */
const rereads: Record<string, (trpc: TRPC, id: string) => QueryFilters[]> = {
  // A message, a card, a reaction, typing, the agent's read mark: the chat, and the chat list.
  chat: (trpc, id) => [
    trpc.chats.page.pathFilter({ predicate: (query) => showsChat(query, id) }),
    trpc.chats.list.pathFilter(),
  ],
  // A card proposed, decided or expired: what waits on the person, and its count.
  cards: (trpc) => [trpc.chats.waiting.pathFilter(), trpc.chats.waitingCount.pathFilter()],
  // The person's own read mark only lowers unread counts: a view that already shows none (this
  // tab marked it, and cleared its counts as it did) has nothing to re-read.
  read: (trpc, id) => [
    trpc.chats.page.pathFilter({
      predicate: (query) => showsChat(query, id) && pageShowsUnread(query.state.data),
    }),
    trpc.chats.list.pathFilter({
      predicate: (query) => listShowsUnread(query.state.data, id),
    }),
  ],
  // Contacts and their settings: every chat view, and the feed (whose posts reach whom).
  chats: (trpc) => [trpc.chats.pathFilter(), trpc.feed.pathFilter()],
  // An email or a read mark: the thread's loaded pages, and the inbox's.
  thread: (trpc, id) => [
    trpc.inbox.thread.infiniteQueryFilter({ threadId: id }),
    trpc.inbox.list.infiniteQueryFilter({}),
  ],
  records: (trpc) => [trpc.records.pathFilter()],
  feed: (trpc) => [trpc.feed.pathFilter()],
  calls: (trpc) => [trpc.calls.pathFilter()],
  self: (trpc) => [trpc.selfChat.pathFilter()],
  // An agent's profile or standing: its owner's pages, and the chats and posts that show it.
  agent: (trpc, id) => [
    trpc.agents.get.queryFilter({ agentId: id }),
    trpc.agents.list.queryFilter(),
    trpc.chats.pathFilter(),
    trpc.feed.pathFilter(),
  ],
  // An owned agent's counts: its usage, charts, decisions, and the agents list's sparklines.
  activity: (trpc, id) => [
    trpc.agents.get.queryFilter({ agentId: id }),
    trpc.agents.history.queryFilter({ agentId: id }),
    trpc.agents.decisions.infiniteQueryFilter({ agentId: id }),
    trpc.agents.list.queryFilter(),
  ],
  // An owned agent's webhook: its page and log, the banner, the status page, the webhook chart.
  webhook: (trpc, id) => [
    trpc.webhooks.get.queryFilter({ agentId: id }),
    trpc.webhooks.delivery.queryFilter({ agentId: id }),
    trpc.webhooks.alerts.queryFilter(),
    trpc.instance.status.queryFilter(),
    trpc.agents.history.queryFilter({ agentId: id }),
  ],
};

/**
 * What to invalidate for the changes of one coalesced burst: `null` (the start, a write that named
 * nothing, or a kind this table does not know) re-reads everything, so nothing is ever missed.
 */
export function rereadFilter(trpc: TRPC, changes: Iterable<string> | null): QueryFilters {
  if (changes === null) return {};
  const filters: QueryFilters[] = [];
  for (const change of changes) {
    const colon = change.indexOf(":");
    const kind = colon < 0 ? change : change.slice(0, colon);
    const id = colon < 0 ? "" : change.slice(colon + 1);
    const reread = Object.hasOwn(rereads, kind) ? rereads[kind] : undefined;
    if (!reread) return {};
    filters.push(...reread(trpc, id));
  }
  return { predicate: (query) => filters.some((filter) => matchQuery(filter, query)) };
}

/** A chat page's query of this conversation: by its input, or by what it loaded (a number). */
function showsChat(query: Query, conversationId: string): boolean {
  const input = (query.queryKey[1] as { input?: { chat?: string } } | undefined)?.input;
  if (input?.chat === conversationId) return true;
  const data = query.state.data as ChatPages | undefined;
  return data?.pages[0]?.conversation.id === conversationId;
}

type ChatPages = { pages: { conversation: { id: string; unreadCount: number } }[] };

function pageShowsUnread(data: unknown): boolean {
  const pages = (data as ChatPages | undefined)?.pages;
  return !pages || pages.some((page) => page.conversation.unreadCount > 0);
}

type ChatListPage = { chats: { id: string; unreadCount: number }[] };

/** A chat list (its loaded pages, or one page read alone) that shows the chat unread. */
function listShowsUnread(data: unknown, conversationId: string): boolean {
  const list = data as { pages: ChatListPage[] } | ChatListPage | undefined;
  if (!list) return true;
  const pages = "pages" in list ? list.pages : [list];
  return pages.some((page) =>
    page.chats.some((chat) => chat.id === conversationId && chat.unreadCount > 0),
  );
}
