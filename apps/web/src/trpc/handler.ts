import "server-only";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { type Context, createContext } from "./init";
import { appRouter } from "./router";

/**
 * Answers one `/api/trpc` request. The context is the session's by default; tests pass their
 * own (core deps over a test database, a chosen user).
 */
export function handleTrpcRequest(
  request: Request,
  context: () => Promise<Context> = createContext,
): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext: context,
    // The browser gets "Something went wrong"; the log gets what went wrong.
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR")
        console.error(`[trpc ${path ?? "?"}] unexpected error`, error.cause ?? error);
    },
  });
}
