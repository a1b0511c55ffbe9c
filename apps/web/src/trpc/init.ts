import "server-only";
import { type ErrorCode, type ErrorIssue, errorStatus, toErrorIssues } from "@switchboard/contract";
import {
  assertSessionStanding,
  assertSessionUserActive,
  type CoreDeps,
  CoreError,
  getOwnedAgent,
  type SessionStanding,
} from "@switchboard/core";
import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { ZodError, z } from "zod";
import type { SessionUser } from "~/auth/options";
import { getSession } from "~/auth/session";
import { clientNetwork } from "~/server/client-network";
import { getDeps } from "~/server/deps";
import { assertStorableInput } from "~/server/storable-input";

/**
 * The console's tRPC setup, in one place: the context (core deps and the signed-in person),
 * `publicProcedure` and `protectedProcedure`, and the one mapping from thrown errors to what the
 * console receives — the same `code`, `message` and `issues` the REST API answers.
 */

export interface Context {
  deps: CoreDeps;
  user: SessionUser | null;
  /** The session's standing when the context already read it (else procedures read it). */
  standing?: SessionStanding;
  /** The client's network, for sign-up limits (`clientNetwork`); null when unknown. */
  clientNetwork?: string | null;
}

export async function createContext({ req }: { req: Request }): Promise<Context> {
  const deps = getDeps();
  const session = await getSession();
  return {
    deps,
    user: session?.user ?? null,
    standing: session?.standing,
    clientNetwork: clientNetwork(req.headers, deps.config.TRUSTED_PROXIES),
  };
}

/** A core error's HTTP status (from the contract's table) as the tRPC code that carries it. */
export const trpcCodeByStatus: Record<(typeof errorStatus)[ErrorCode], TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  408: "TIMEOUT",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  416: "BAD_REQUEST",
  431: "BAD_REQUEST", // tRPC has no code of its own for it
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

/** The spec's code for a failure raised by tRPC itself (bad batch, unknown procedure, …). */
const codeByTrpcCode: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  PARSE_ERROR: "validation_error",
  BAD_REQUEST: "validation_error",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "forbidden",
  NOT_FOUND: "not_found",
  METHOD_NOT_SUPPORTED: "method_not_allowed",
  CONFLICT: "conflict",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  TOO_MANY_REQUESTS: "rate_limited",
};

/** What a failed console call tells the browser; never a stack or an internal message. */
export interface ConsoleErrorData {
  httpStatus: number;
  code: ErrorCode;
  issues?: ErrorIssue[];
  retryAfterSeconds?: number;
  scope?: string;
}

export function consoleError(error: TRPCError): { message: string; data: ConsoleErrorData } {
  const cause = error.cause;
  if (cause instanceof CoreError)
    return {
      message: cause.message,
      data: { httpStatus: errorStatus[cause.code], code: cause.code, ...cause.details },
    };
  if (cause instanceof ZodError)
    return {
      message: "The request failed validation",
      data: { httpStatus: 400, code: "validation_error", issues: toErrorIssues(cause) },
    };
  const code = codeByTrpcCode[error.code] ?? "internal_error";
  return code === "internal_error"
    ? { message: "Something went wrong on our side", data: { httpStatus: 500, code } }
    : { message: error.message, data: { httpStatus: errorStatus[code], code } };
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  // Live views are server-sent events; pings keep proxies from closing an idle stream, and the
  // browser reconnects (and re-reads) when pings stop arriving.
  sse: {
    ping: { enabled: true, intervalMs: 15_000 },
    client: { reconnectAfterInactivityMs: 40_000 },
  },
  errorFormatter({ shape, error }) {
    const { message, data } = consoleError(error);
    return { ...shape, message, data };
  },
});

/** A core error leaves a procedure as the tRPC error of its status, so clients see its class. */
const coreErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof CoreError) {
    const cause = result.error.cause;
    throw new TRPCError({
      code: trpcCodeByStatus[errorStatus[cause.code]],
      message: cause.message,
      cause,
    });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Input carrying text Postgres cannot store is refused here, naming the path, for every call. */
const storableInput = t.middleware(async ({ getRawInput, next }) => {
  assertStorableInput(await getRawInput());
  return next();
});

export const publicProcedure = t.procedure.use(coreErrors).use(storableInput);

/**
 * Signed-in and not suspended; `ctx.user` is the person. Agent procedures still check ownership
 * per agent.
 */
export const protectedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
  if (ctx.standing) assertSessionStanding(ctx.standing);
  else await assertSessionUserActive(ctx.deps, ctx.user.id, ctx.user.sessionId);
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/**
 * For procedures on one agent: input `{ agentId, ... }`, and nothing runs unless the signed-in
 * person owns that agent (core `getOwnedAgent`; 404 `not_found` otherwise, so another owner's
 * agents do not even show that they exist). `ctx.agent` is the owned agent as read just now.
 */
export const ownedAgentProcedure = protectedProcedure
  .input(z.object({ agentId: z.string().min(1) }))
  .use(async ({ ctx, input, next }) =>
    next({ ctx: { agent: await getOwnedAgent(ctx.deps, ctx.user.id, input.agentId) } }),
  );
