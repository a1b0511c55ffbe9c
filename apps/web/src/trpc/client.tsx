"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import {
  createTRPCClient,
  httpBatchLink,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { signOut } from "next-auth/react";
import { type ReactNode, useState } from "react";
import superjson from "superjson";
import { unsubscribeThisBrowser } from "~/components/push-subscription";
import { signInPath } from "~/components/return-to";
import { makeQueryClient } from "./query-client";
import type { AppRouter } from "./router";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/**
 * A call made with `context: { keepalive: true }` goes alone (not batched on the next tick) with
 * fetch's `keepalive`, so it is sent even when the tab is closing: an undoable removal whose
 * window a page load cut short (`ui/undo.tsx`). Its body must stay small (browsers cap 64 KiB).
 */
const keepaliveLink = httpLink({
  url: "/api/trpc",
  transformer: superjson,
  fetch: (url, init) => fetch(url, { ...(init as RequestInit), keepalive: true }),
});

/** The HTTP status of a failed console call, when the server answered one. */
function statusOf(error: unknown): number | undefined {
  return error instanceof TRPCClientError
    ? (error.data as { httpStatus?: number } | undefined)?.httpStatus
    : undefined;
}

/** Set once the person asked to sign out: their session ends on purpose, not under them. */
let signingOut = false;

/**
 * Signs the person out and to the sign-in page. Calls refused meanwhile (a re-read racing the
 * cookie's removal) must not send them to sign in "and back to this page".
 */
export function signOutOfConsole(): void {
  signingOut = true;
  // This browser's push subscription goes first, while the session can still say whose it is.
  void unsubscribeThisBrowser().then(() => signOut({ callbackUrl: "/signin" }));
}

/**
 * A session that ended (expired, signed out in another tab) sends the person to sign in, and
 * back to this page after.
 */
function onError(error: unknown) {
  if (statusOf(error) === 401 && !signingOut) {
    const here = `${window.location.pathname}${window.location.search}`;
    window.location.assign(signInPath(here));
  }
}

/** A refusal (4xx) will not change on retry; a network blip or a 5xx might. */
const retry = (failures: number, error: unknown) => failures < 2 && (statusOf(error) ?? 500) >= 500;

/**
 * The console's data layer: one query client and one tRPC client per browser tab. The query
 * client starts with what the server read for the page (`HydrateClient` in `server.tsx`).
 */
export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => makeQueryClient({ onError, retry }));
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({ url: "/api/trpc", transformer: superjson }),
          false: splitLink({
            condition: (op) => op.context.keepalive === true,
            true: keepaliveLink,
            // The server refuses batches over 10 calls (MAX_BATCH_CALLS in handler.ts).
            false: httpBatchLink({ url: "/api/trpc", transformer: superjson, maxItems: 10 }),
          }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
