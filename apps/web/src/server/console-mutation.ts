import {
  assertSessionStanding,
  type CoreDeps,
  enforceConsoleRequestLimit,
} from "@switchboard/core";
import type { SessionUser } from "~/auth/options";
import { crossOriginReason } from "~/auth/same-origin";
import { getSession } from "~/auth/session";
import { getDeps } from "./deps";
import { callerKey, readBodyText } from "./read-body";
import { errorResponse, toErrorResponse } from "./responses";

/** A console route's JSON body is small (a push subscription, a decision). */
const MAX_CONSOLE_BODY = 16 * 1024;

/**
 * A console mutation outside tRPC (the service worker's and the push subscription's routes),
 * under the console's rules: another origin's page is refused (403 `forbidden`), no session is
 * 401, a suspended account 403, the person's console request limit counts it, and the body is
 * JSON (else 400 `validation_error`). Errors answer in the API's envelope.
 */
export async function consoleMutation(
  request: Request,
  handle: (deps: CoreDeps, user: SessionUser, body: unknown) => Promise<Response>,
): Promise<Response> {
  const crossOrigin = crossOriginReason(request.headers);
  if (crossOrigin) return errorResponse("forbidden", crossOrigin);
  try {
    const session = await getSession();
    if (!session) return errorResponse("unauthorized", "Sign in to the console first");
    assertSessionStanding(session.standing);
    const deps = getDeps();
    await enforceConsoleRequestLimit(deps, session.user.id);
    const text = await readBodyText(request, {
      caller: callerKey({ userId: session.user.id }),
      maxBytes: MAX_CONSOLE_BODY,
    });
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return errorResponse("validation_error", "The body must be JSON");
    }
    return await handle(deps, session.user, body);
  } catch (error) {
    return toErrorResponse(error, crypto.randomUUID());
  }
}
