import "server-only";
import {
  dehydrate,
  type FetchInfiniteQueryOptions,
  type FetchQueryOptions,
  HydrationBoundary,
  hashKey,
} from "@tanstack/react-query";
import { createTRPCOptionsProxy, type TRPCQueryKey } from "@trpc/tanstack-react-query";
import { cache, type ReactNode } from "react";
import { getSession } from "~/auth/session";
import { getDeps } from "~/server/deps";
import type { Context } from "./init";
import { makeQueryClient } from "./query-client";
import { appRouter } from "./router";

/**
 * Console pages read their first data on the server, so the first HTML answer shows it: a page
 * (or layout) names its queries with `trpc` below, exactly as its client components ask for them
 * with `useTRPC()`, and wraps those components in `<HydrateClient queries={…}>`. The browser's
 * query client starts with that data and answers the components' `useQuery` from it; the live
 * link keeps it current from there (its keys are the browser's own, so wake-ups re-read them).
 */

/**
 * When this request began reading what its page shows (before any read). The tab's live link
 * starts from it, so it re-reads nothing that has not changed since (`live.changes`).
 */
export const pageReadAt = cache(() => getDeps().clock.now().getTime());

/** The procedures' context for this request: its session, read once, as the route handler does. */
const requestContext = cache(async (): Promise<Context> => {
  pageReadAt();
  const session = await getSession();
  return { deps: getDeps(), user: session?.user ?? null, standing: session?.standing };
});

/** One query client per request, holding what the server read for the page. */
export const getQueryClient = cache(() => makeQueryClient());

/** The console's procedures as query options for server components (the same keys as `useTRPC()`). */
export const trpc = createTRPCOptionsProxy({
  ctx: requestContext,
  router: appRouter,
  queryClient: getQueryClient,
});

/** Options from `trpc` above: a query's, or an infinite query's (its key says which). */
type ServerQuery = { queryKey: TRPCQueryKey; initialPageParam?: unknown };

/**
 * The paging of an infinite query on the server, which reads only its first page: the browser's
 * own options page on from there (and the key, which is what matters, leaves paging out).
 */
export const firstPageOnly = { getNextPageParam: () => undefined };

/**
 * Reads `queries` into this request's query client, together, each at most once per request; the
 * data is then at `getQueryClient().getQueryData(query.queryKey)`. A query that fails is left
 * out: the browser reads it again and shows the failure as it always does (a missing chat says
 * so), so a bad id never makes the page fail.
 */
export async function prefetch(...queries: ServerQuery[]): Promise<void> {
  const queryClient = getQueryClient();
  await Promise.all(
    queries.map((query) =>
      query.queryKey[1]?.type === "infinite"
        ? queryClient.prefetchInfiniteQuery(query as FetchInfiniteQueryOptions)
        : queryClient.prefetchQuery(query as FetchQueryOptions),
    ),
  );
}

/**
 * Renders `children` with `queries` read first (`prefetch`) and handed to the browser's query
 * client, so their client components render with the data on the server and in the browser
 * alike. Only these queries go along: a layout and its page each send their own.
 */
export async function HydrateClient({
  queries,
  children,
}: {
  queries: ServerQuery[];
  children: ReactNode;
}) {
  await prefetch(...queries);
  const queryClient = getQueryClient();
  const ours = new Set(queries.map((query) => hashKey(query.queryKey)));
  const state = dehydrate(queryClient, {
    shouldDehydrateQuery: (query) => ours.has(query.queryHash) && query.state.status === "success",
  });
  return <HydrationBoundary state={state}>{children}</HydrationBoundary>;
}
