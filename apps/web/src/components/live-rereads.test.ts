import { QueryClient } from "@tanstack/react-query";
import { createTRPCClient } from "@trpc/client";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { describe, expect, it } from "vitest";
import type { AppRouter } from "~/trpc/router";
import { rereadFilter } from "./live-rereads";

/** A tab's cache holding one of each query a change may touch, with data where it matters. */
function tab() {
  const queryClient = new QueryClient();
  const trpc = createTRPCOptionsProxy<AppRouter>({
    client: createTRPCClient<AppRouter>({ links: [] }),
    queryClient,
  });
  const page = (id: string, unreadCount: number) => ({
    pages: [{ conversation: { id, unreadCount } }],
    pageParams: [null],
  });
  const seed: [readonly unknown[], unknown][] = [
    [trpc.chats.page.infiniteQueryKey({ chat: "cnv_a" }), page("cnv_a", 1)],
    [trpc.chats.page.infiniteQueryKey({ chat: "cnv_b" }), page("cnv_b", 0)],
    // A chat opened by the agent's number: known by what it loaded.
    [trpc.chats.page.infiniteQueryKey({ chat: "800-000-001" }), page("cnv_c", 0)],
    // The chat list, a page at a time: cnv_b on its second page.
    [
      trpc.chats.list.infiniteQueryKey({}),
      {
        pages: [
          { chats: [{ id: "cnv_a", unreadCount: 1 }], nextCursor: "1.cnv_a" },
          { chats: [{ id: "cnv_b", unreadCount: 0 }], nextCursor: null },
        ],
        pageParams: [null, "1.cnv_a"],
      },
    ],
    [trpc.chats.agent.queryKey({ chat: "cnv_a" }), {}],
    // "Waiting for you" and its count in the nav, title and app badge.
    [trpc.chats.waiting.queryKey({ since: 1 }), { cards: [], count: 0, targets: [] }],
    [trpc.chats.waitingCount.queryKey(), { count: 0, nextExpiresAt: null }],
    [trpc.inbox.thread.infiniteQueryKey({ threadId: "eth_1" }), { pages: [], pageParams: [] }],
    [trpc.inbox.list.infiniteQueryKey({}), { pages: [], pageParams: [] }],
    [trpc.records.list.queryKey({ type: "task" }), []],
    [trpc.agents.get.queryKey({ agentId: "agt_1" }), {}],
    [trpc.agents.get.queryKey({ agentId: "agt_2" }), {}],
    [trpc.agents.history.queryKey({ agentId: "agt_1", days: 14 }), {}],
    [trpc.webhooks.get.queryKey({ agentId: "agt_1", status: "failed" }), {}],
    [trpc.webhooks.alerts.queryKey(), []],
    [trpc.instance.status.queryKey(), {}],
    [trpc.feed.page.infiniteQueryKey({}), { pages: [], pageParams: [] }],
  ];
  for (const [key, data] of seed) queryClient.setQueryData(key, data);
  /** The paths (and the first input value) of the queries a burst of changes re-reads. */
  const rereads = (changes: string[] | null) =>
    queryClient
      .getQueryCache()
      .findAll(rereadFilter(trpc, changes))
      .map(({ queryKey }) => {
        const [path, options] = queryKey as [string[], { input?: object } | undefined];
        const first = options?.input && Object.values(options.input)[0];
        return [path.join("."), first].filter(Boolean).join(" ");
      })
      .sort();
  return { rereads, all: seed.length };
}

describe("rereadFilter", () => {
  it("re-reads only the chat that changed and the chat list", () => {
    expect(tab().rereads(["chat:cnv_a"])).toEqual(["chats.list", "chats.page cnv_a"]);
    expect(tab().rereads(["chat:cnv_c"])).toEqual(["chats.list", "chats.page 800-000-001"]);
  });

  it("re-reads what waits on the person only when a card comes or goes", () => {
    expect(tab().rereads(["cards"])).toEqual(["chats.waiting 1", "chats.waitingCount"]);
  });

  it("skips the person's own read mark where no view shows the chat unread", () => {
    expect(tab().rereads(["read:cnv_a"])).toEqual(["chats.list", "chats.page cnv_a"]);
    expect(tab().rereads(["read:cnv_b"])).toEqual([]);
  });

  it("re-reads an owned agent's webhook views, its usage, or its standing", () => {
    expect(tab().rereads(["webhook:agt_1"])).toEqual([
      "agents.history agt_1",
      "instance.status",
      "webhooks.alerts",
      "webhooks.get agt_1",
    ]);
    expect(tab().rereads(["activity:agt_2"])).toEqual(["agents.get agt_2"]);
    expect(tab().rereads(["agent:agt_1"])).toEqual([
      "agents.get agt_1",
      "chats.agent cnv_a",
      "chats.list",
      "chats.page 800-000-001",
      "chats.page cnv_a",
      "chats.page cnv_b",
      "chats.waiting 1",
      "chats.waitingCount",
      "feed.page",
    ]);
  });

  it("takes the union of a burst's changes", () => {
    expect(tab().rereads(["thread:eth_1", "records"])).toEqual([
      "inbox.list",
      "inbox.thread eth_1",
      "records.list task",
    ]);
  });

  it("re-reads everything for no change named, or a change it does not know", () => {
    const { rereads, all } = tab();
    expect(rereads(null)).toHaveLength(all);
    expect(rereads(["chat:cnv_a", "something-new:1"])).toHaveLength(all);
  });
});
