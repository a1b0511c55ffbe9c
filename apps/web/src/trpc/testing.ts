import type { CoreDeps } from "@switchboard/core";
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { expect } from "vitest";
import type { SessionUser } from "~/auth/options";
import { handleTrpcRequest } from "./handler";
import type { AppRouter } from "./router";

// The console API's test clients. Plain functions, no hooks: each test file owns its deps.

/** A console client for `user` (null: signed out), going through the real HTTP handler. */
export function consoleClient(deps: CoreDeps, user: SessionUser | null) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: "http://console.test/api/trpc",
        transformer: superjson,
        fetch: (url, init) =>
          handleTrpcRequest(new Request(url, init as RequestInit), async () => ({ deps, user })),
      }),
    ],
  });
}

/** The failure of a call, as the console's pages read it. */
export async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => expect.unreachable("the call succeeded"),
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCClientError)) throw error;
  return { message: error.message, data: error.data as Record<string, unknown> };
}

/** A new person signed up through the console: their email, their signed-in client, the user. */
export async function signUpThroughConsole(deps: CoreDeps, name: string) {
  const email = `${name.toLowerCase()}-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await consoleClient(deps, null).auth.signUp.mutate({
    displayName: name,
    email,
    password: "correct horse battery",
  });
  return { email, session: consoleClient(deps, { id: user.id, num: user.num, name }), user };
}
