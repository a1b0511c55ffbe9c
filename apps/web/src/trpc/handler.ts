import "server-only";
import { errorStatus } from "@switchboard/contract";
import { CoreError, enforceConsoleRequestLimit, log } from "@switchboard/core";
import { describeError } from "@switchboard/db";
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { crossOriginReason } from "~/auth/same-origin";
import { callerKey, MAX_BODY_BYTES, readBodyText } from "~/server/read-body";
import { storableQuery } from "~/server/storable-input";
import { type Context, consoleError, createContext, trpcCodeByStatus } from "./init";
import { appRouter } from "./router";

const ENDPOINT = "/api/trpc";

/** Calls one request may batch (the console's client batches at most this many). */
export const MAX_BATCH_CALLS = 10;

/** Procedures that answer without a session; every other call needs one (tested both ways). */
export const PUBLIC_PROCEDURES: ReadonlySet<string> = new Set(["auth.signUp"]);

/** The console's one upload: a voice note from a file, as a data URL in `chats.send`. */
const UPLOAD_PROCEDURES: ReadonlySet<string> = new Set(["chats.send"]);

/**
 * Body caps by who is asking: the sign-up form before anyone is known; a batch of the console's
 * largest texts (10,000 characters, JSON-escaped) for a signed-in person; a voice note only in
 * a request that calls the upload procedure.
 */
export const BODY_CAPS = { public: 16 * 1024, console: 1024 * 1024, upload: MAX_BODY_BYTES };

/**
 * Answers one `/api/trpc` request. The context is the session's by default; tests pass their
 * own (core deps over a test database, a chosen user).
 *
 * What is cheap and needs no body comes first, so nobody unknown makes the server read one:
 * the Origin check, the batch's size, the session (and the person's request limit); then the
 * body, capped by what those calls may send, as it streams in.
 */
export async function handleTrpcRequest(
  request: Request,
  context: (options: { req: Request }) => Promise<Context> = createContext,
): Promise<Response> {
  const crossOrigin = crossOriginReason(request.headers);
  if (crossOrigin) return refuse(request, new CoreError("forbidden", crossOrigin));
  const url = new URL(request.url);
  try {
    storableQuery(url); // percent-escapes that are not UTF-8
  } catch (error) {
    return refuse(request, error as CoreError);
  }
  const calls = procedurePaths(url);
  if (url.searchParams.get("batch") === "1" && calls.length > MAX_BATCH_CALLS)
    return refuse(
      request,
      new CoreError("validation_error", `A batch may hold at most ${MAX_BATCH_CALLS} calls`),
    );
  const unknown = calls.find((call) => !Object.hasOwn(appRouter._def.procedures, call));
  if (unknown !== undefined)
    return refuse(
      request,
      new CoreError("not_found", `No procedure found on path "${unknown.slice(0, 100)}"`),
    );
  let ctx: Context;
  try {
    ctx = await context({ req: request });
    if (!ctx.user && !calls.every((call) => PUBLIC_PROCEDURES.has(call)))
      return refuse(request, new CoreError("unauthorized", "Sign in first"));
    if (ctx.user) await enforceConsoleRequestLimit(ctx.deps, ctx.user.id);
  } catch (error) {
    if (error instanceof CoreError) return refuse(request, error);
    log.error({ procedure: calls.join(","), err: describeError(error) }, "unexpected error");
    return refuse(request, new CoreError("internal_error", "Something went wrong on our side"));
  }
  let req = request;
  if (request.body) {
    // tRPC would read any size into memory; the body is read here, capped as it streams in.
    const cap = !ctx.user
      ? BODY_CAPS.public
      : calls.some((call) => UPLOAD_PROCEDURES.has(call))
        ? BODY_CAPS.upload
        : BODY_CAPS.console;
    const caller = ctx.user
      ? callerKey({ userId: ctx.user.id })
      : callerKey({ network: ctx.clientNetwork ?? null });
    const body = await readBodyText(request, { caller, maxBytes: cap }).catch(
      (error: CoreError) => error,
    );
    if (body instanceof CoreError) return refuse(request, body);
    req = new Request(request.url, { method: request.method, headers: request.headers, body });
  }
  return fetchRequestHandler({
    endpoint: ENDPOINT,
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH_CALLS,
    createContext: () => Promise.resolve(ctx),
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
  const calls = Math.min(procedurePaths(url).length, MAX_BATCH_CALLS);
  const body = url.searchParams.get("batch") === "1" ? Array(calls).fill({ error }) : { error };
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (data.retryAfterSeconds !== undefined) headers["Retry-After"] = String(data.retryAfterSeconds);
  return Response.json(body, { status: data.httpStatus, headers });
}

/** The procedures a request calls, by path (`chats.list,agents.list` for a batch of two). */
function procedurePaths(url: URL): string[] {
  return url.pathname.slice(ENDPOINT.length + 1).split(",");
}
