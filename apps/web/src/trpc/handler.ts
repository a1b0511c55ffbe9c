import "server-only";
import { errorStatus } from "@switchboard/contract";
import { CoreError, log } from "@switchboard/core";
import { describeError } from "@switchboard/db";
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { crossOriginReason } from "~/auth/same-origin";
import { readBodyText } from "~/server/read-body";
import { storableQuery } from "~/server/storable-input";
import { type Context, consoleError, createContext, trpcCodeByStatus } from "./init";
import { appRouter } from "./router";

const ENDPOINT = "/api/trpc";

/**
 * Answers one `/api/trpc` request. The context is the session's by default; tests pass their
 * own (core deps over a test database, a chosen user).
 */
export async function handleTrpcRequest(
  request: Request,
  context: (options: { req: Request }) => Promise<Context> = createContext,
): Promise<Response> {
  const crossOrigin = crossOriginReason(request.headers);
  if (crossOrigin) return refuse(request, new CoreError("forbidden", crossOrigin));
  try {
    storableQuery(new URL(request.url)); // percent-escapes that are not UTF-8
  } catch (error) {
    return refuse(request, error as CoreError);
  }
  let req = request;
  if (request.body) {
    // tRPC would read any size into memory; the body is read here, capped as it streams in.
    const body = await readBodyText(request).catch((error: CoreError) => error);
    if (body instanceof CoreError) return refuse(request, body);
    req = new Request(request.url, { method: request.method, headers: request.headers, body });
  }
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req,
    router: appRouter,
    createContext: context,
    // The browser gets "Something went wrong"; the log gets what went wrong.
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR")
        log.error(
          { procedure: path, err: describeError(error.cause ?? error) },
          "unexpected error",
        );
    },
  });
}

/**
 * A request refused before any procedure runs: one another origin's page sent (so no other site
 * can act with the person's cookie — mutation, subscription or query), or one whose body is too
 * large or not UTF-8. The answer is the error every call of the request would get (tRPC's HTTP
 * shape: one `{ error }`, or one per call of a batch), with its own status rather than an event
 * stream that opens and then fails.
 */
function refuse(request: Request, cause: CoreError): Response {
  const code = trpcCodeByStatus[errorStatus[cause.code]];
  const { message, data } = consoleError(new TRPCError({ code, message: cause.message, cause }));
  const error = superjson.serialize({ message, code: TRPC_ERROR_CODES_BY_KEY[code], data });
  const url = new URL(request.url);
  const calls = url.pathname.slice(ENDPOINT.length + 1).split(",").length;
  const body = url.searchParams.get("batch") === "1" ? Array(calls).fill({ error }) : { error };
  return Response.json(body, { status: data.httpStatus, headers: { "Cache-Control": "no-store" } });
}
