"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import {
  createTRPCClient,
  httpBatchLink,
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
import type { AppRouter, RouterInputs } from "./router";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** A console mutation named by its path, with its input: what an undoable removal sends. */
export interface ConsoleMutation {
  path: string;
  input: unknown;
}

/** `records.delete` with its input, typed by the router. */
export function consoleMutation<
  Router extends keyof RouterInputs & string,
  Procedure extends keyof RouterInputs[Router] & string,
>(router: Router, procedure: Procedure, input: RouterInputs[Router][Procedure]): ConsoleMutation {
  return { path: `${router}.${procedure}`, input };
}

/**
 * Sends a mutation with fetch's `keepalive`, started in this very task: from a `pagehide` handler
 * (`ui/undo.tsx`) the request is on its way before the handler returns, where the tRPC client
 * would first await its links. The service worker lets it pass untouched (`public/sw.js`: a
 * request routed through it could be lost with the page). Bodies stay small (browsers cap
 * keepalive bodies at 64 KiB). Resolves with the answer, rejects with a `TRPCClientError` as
 * the client would.
 */
export function sendNow(call: ConsoleMutation): Promise<unknown> {
  const response = fetch(`/api/trpc/${call.path}`, {
    method: "POST",
    keepalive: true,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(superjson.serialize(call.input)),
  });
  return response.then(async (answer) => {
    const body = (await answer.json().catch(() => null)) as {
      result?: { data: Parameters<typeof superjson.deserialize>[0] };
      error?: Parameters<typeof superjson.deserialize>[0];
    } | null;
    if (answer.ok && body?.result) return superjson.deserialize(body.result.data);
    if (body?.error) throw TRPCClientError.from({ error: superjson.deserialize(body.error) });
    throw TRPCClientError.from(new Error(`The console answered ${answer.status}.`));
  });
}

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
          // The server refuses batches over 10 calls (MAX_BATCH_CALLS in handler.ts).
          false: httpBatchLink({ url: "/api/trpc", transformer: superjson, maxItems: 10 }),
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
