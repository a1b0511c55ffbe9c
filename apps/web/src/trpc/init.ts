import "server-only";
import { type ErrorCode, errorStatus, toErrorIssues } from "@switchboard/contract";
import { type CoreDeps, CoreError } from "@switchboard/core";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import type { SessionUser } from "~/auth/options";
import { getSessionUser } from "~/auth/session";
import { getDeps } from "~/server/deps";

/** The console's tRPC setup: context, the two procedure kinds, and one error mapping. */

export async function createContext(): Promise<{ deps: CoreDeps; user: SessionUser | null }> {
  return { deps: getDeps(), user: await getSessionUser() };
}

const trpcCodes: Record<number, TRPCError["code"]> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "TOO_MANY_REQUESTS",
};

const t = initTRPC.context<typeof createContext>().create({
  transformer: superjson,
  // The same `code` and `issues` the REST API answers, so the console shows the same errors.
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const code: ErrorCode =
      cause instanceof CoreError
        ? cause.code
        : cause instanceof ZodError
          ? "validation_error"
          : error.code === "UNAUTHORIZED"
            ? "unauthorized"
            : error.code === "INTERNAL_SERVER_ERROR"
              ? "internal_error"
              : "validation_error";
    const issues =
      cause instanceof ZodError
        ? toErrorIssues(cause)
        : cause instanceof CoreError
          ? cause.details.issues
          : undefined;
    return {
      ...shape,
      message: code === "internal_error" ? "Something went wrong on our side" : shape.message,
      data: { httpStatus: shape.data.httpStatus, code, issues },
    };
  },
});

/** Core errors become tRPC errors with the status their code maps to. */
const coreErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof CoreError) {
    const cause = result.error.cause;
    throw new TRPCError({
      code: trpcCodes[errorStatus[cause.code]] ?? "INTERNAL_SERVER_ERROR",
      message: cause.message,
      cause,
    });
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(coreErrors);
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
  return next({ ctx: { ...ctx, user: ctx.user } });
});
