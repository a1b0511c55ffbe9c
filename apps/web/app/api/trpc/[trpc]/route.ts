import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContext } from "~/trpc/init";
import { appRouter } from "~/trpc/router";

function handler(request: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req: request,
    router: appRouter,
    createContext,
  });
}

export { handler as GET, handler as POST };
