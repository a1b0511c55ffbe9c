import {
  defaultShouldDehydrateQuery,
  MutationCache,
  QueryCache,
  QueryClient,
} from "@tanstack/react-query";
import superjson from "superjson";

/**
 * How long data counts as current without news: the live link marks a view stale when what it
 * shows changes (decision 0043), so this only keeps the browser from reading again what the
 * server just rendered the page with.
 */
const STALE_AFTER_MS = 30_000;

/**
 * The console's query client, with the same defaults on the server (which reads a page's first
 * data, `server.tsx`) and in the browser (which is handed that data and keeps it current). Data
 * crosses between them as superjson, like the API's answers; a query still running when the
 * server hands its cache over goes along as a promise that settles in the browser.
 */
export function makeQueryClient(
  browser: {
    onError?: (error: unknown) => void;
    retry?: (failures: number, error: unknown) => boolean;
  } = {},
) {
  return new QueryClient({
    queryCache: new QueryCache({ onError: browser.onError }),
    mutationCache: new MutationCache({ onError: browser.onError }),
    defaultOptions: {
      queries: { staleTime: STALE_AFTER_MS, retry: browser.retry },
      dehydrate: {
        serializeData: superjson.serialize,
        shouldDehydrateQuery: (query) =>
          defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
