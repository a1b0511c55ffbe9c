import "server-only";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from "@switchboard/contract";
import {
  type CoreDeps,
  claimIdempotencyKey,
  log,
  parseIdempotencyKey,
  requestFingerprint,
} from "@switchboard/core";
import { describeError } from "@switchboard/db";

/**
 * A POST's `Idempotency-Key` (decision 0060), around the route's handler: without the header
 * the handler runs as always (no statement added); with it, the key is claimed first and a
 * retry answers the stored first answer (`Idempotent-Replayed: true`) instead of running again.
 * The handler's write stores its answer in its own transaction (`deps.idempotentWrite`); a
 * handler whose write has no such hook has its answer stored when it is done; a refusal or
 * failure frees the key.
 */
export async function idempotent(
  request: { method: string; headers: Headers; url: URL },
  call: { deps: CoreDeps; ownerId: string; body: unknown; successStatus: number },
  handle: (deps: CoreDeps) => Promise<Response>,
): Promise<Response> {
  const header = request.method === "POST" ? request.headers.get(IDEMPOTENCY_KEY_HEADER) : null;
  if (header === null) return handle(call.deps);
  const { url } = request;
  const claim = await claimIdempotencyKey(
    call.deps,
    {
      ownerId: call.ownerId,
      key: parseIdempotencyKey(header),
      fingerprint: requestFingerprint(request.method, url.pathname + url.search, call.body),
    },
    call.successStatus,
  );
  if ("replay" in claim)
    return new Response(claim.replay.body, {
      status: claim.replay.status,
      headers: {
        "Content-Type": "application/json",
        "Cache-Control": "no-store",
        [IDEMPOTENT_REPLAYED_HEADER]: "true",
      },
    });
  const { write } = claim;
  // A key left claimed (the database failing too) frees itself after the lease.
  const release = () =>
    write.release(call.deps).catch((error: unknown) => {
      log.warn({ err: describeError(error) }, "idempotency key not released");
    });
  let response: Response;
  try {
    response = await handle({ ...call.deps, idempotentWrite: write });
  } catch (error) {
    await release();
    throw error;
  }
  if (!response.ok) {
    await release();
    return response;
  }
  const body = await response.text();
  if (write.sealed === undefined)
    // Done is done: a failure to store the answer (its lease then frees the key for a retry
    // that runs again) must not turn this request's success into a 500. The handlers without a
    // hook in their write (typing, read marks, reactions) do nothing new when run again.
    await write
      .settle(call.deps, { status: response.status, body })
      .catch((error: unknown) =>
        log.warn({ err: describeError(error) }, "idempotent answer not stored"),
      );
  else if (write.sealed !== body)
    // A route that reshaped its core result: its replays would differ from this answer.
    log.error({ status: response.status }, "idempotent answer differs from the one stored");
  return new Response(body, { status: response.status, headers: response.headers });
}
