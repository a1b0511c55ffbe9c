import { createHash, randomUUID } from "node:crypto";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_TTL_SECONDS,
  IdempotencyKey,
} from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { openSecret } from "../webhooks/sealed-secret";

const { idempotencyKeys } = schema;

/**
 * How long a claimed key with no answer counts as running. Past it the request is taken as dead
 * (its process crashed before answering) and a retry may run it again: safe, because a request
 * that wrote anything stored its answer in that write's transaction. Longer than any POST takes
 * (speech synthesis and media fetches are bounded at seconds).
 */
export const RUNNING_LEASE_MS = 2 * 60_000;

/** A POST that carries an `Idempotency-Key`. */
export interface KeyedRequest {
  /** Whose key: the agent, or the developer key. */
  ownerId: string;
  key: string;
  /** `requestFingerprint` of the request. */
  fingerprint: string;
}

/** The header's value checked: 1–255 printable ASCII characters, else 400. */
export function parseIdempotencyKey(value: string): string {
  const parsed = IdempotencyKey.safeParse(value);
  if (!parsed.success)
    throw new CoreError(
      "invalid_idempotency_key",
      `${IDEMPOTENCY_KEY_HEADER} must be 1-255 printable ASCII characters`,
      { issues: [{ path: IDEMPOTENCY_KEY_HEADER, message: "1-255 printable ASCII characters" }] },
    );
  return parsed.data;
}

/**
 * What makes two requests the same one: method, path with query, and the JSON body with its
 * keys sorted (so spacing and key order do not matter).
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest("base64url");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** The first answer, to send again. */
export interface StoredAnswer {
  status: number;
  body: string;
}

/**
 * Claims a key for a request, in one statement when the key is new: answers the stored answer
 * when the same request already ran, or the claim that lets this one run. Refuses a different
 * request under the key (422) and a retry while the first still runs (409).
 */
export async function claimIdempotencyKey(
  deps: CoreDeps,
  request: KeyedRequest,
  successStatus: number,
): Promise<{ replay: StoredAnswer } | { write: IdempotentWrite }> {
  const now = deps.clock.now();
  const claim = randomUUID();
  const { ownerId, key, fingerprint } = request;
  const [taken] = await deps.db
    .insert(idempotencyKeys)
    .values({
      ownerId,
      key,
      fingerprint,
      claim,
      claimedAt: now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_SECONDS * 1000),
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.ownerId, idempotencyKeys.key],
      set: {
        fingerprint,
        claim,
        claimedAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_SECONDS * 1000),
        answerStatus: null,
        answerBody: null,
      },
      // Taken over only once expired, or when the same request's run died before answering.
      setWhere: or(
        lt(idempotencyKeys.expiresAt, now),
        and(
          isNull(idempotencyKeys.answerBody),
          eq(idempotencyKeys.fingerprint, fingerprint),
          lt(idempotencyKeys.claimedAt, new Date(now.getTime() - RUNNING_LEASE_MS)),
        ),
      ),
    })
    .returning({ claim: idempotencyKeys.claim });
  if (taken) return { write: new IdempotentWrite(request, claim, successStatus) };
  const [held] = await deps.db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      status: idempotencyKeys.answerStatus,
      body: idempotencyKeys.answerBody,
    })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.ownerId, ownerId), eq(idempotencyKeys.key, key)));
  // Deleted in between (expired and swept): the key is free again.
  if (!held) return claimIdempotencyKey(deps, request, successStatus);
  if (held.fingerprint !== fingerprint)
    throw new CoreError(
      "idempotency_key_reused",
      `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request in the last 24 hours; use a new key for a new request`,
    );
  if (held.status === null || held.body === null)
    throw new CoreError(
      "idempotency_key_in_use",
      `A request with this ${IDEMPOTENCY_KEY_HEADER} is still running; retry once it has answered`,
      { retryAfterSeconds: 1 },
    );
  // A body kept sealed (one holding a secret) opens only for its owner; a plain one is as stored.
  const body = openSecret(deps, ownerId, held.body);
  return { replay: { status: held.status, body } };
}

/**
 * A claimed key's run. The write's own transaction stores the answer (`seal`), so the answer and
 * what the request did commit together or not at all; a request whose writes have no such hook
 * stores its answer when it is done (`settle`); a failed one frees the key (`release`).
 */
export class IdempotentWrite {
  /** The answer stored by `seal`, once its transaction ran it. */
  sealed: string | undefined;

  constructor(
    private readonly request: KeyedRequest,
    private readonly claim: string,
    private readonly successStatus: number,
  ) {}

  /**
   * Stores the success answer (`answer` as the route will send it, JSON) in the write's
   * transaction. Throws when the claim was taken over meanwhile, rolling the write back.
   * `keptSealed`: the answer holds a secret, so what is stored is its JSON sealed with
   * `sealSecret` for the owner, never the plain text (replays open it).
   */
  async seal(tx: Tx, answer: unknown, keptSealed?: string): Promise<void> {
    const body = JSON.stringify(answer);
    const rows = await tx
      .update(idempotencyKeys)
      .set({ answerStatus: this.successStatus, answerBody: keptSealed ?? body })
      .where(this.mine())
      .returning({ claim: idempotencyKeys.claim });
    if (rows.length === 0) throw this.lost();
    this.sealed = body;
  }

  /** Stores the answer of a request that did not seal it in its write. */
  async settle(deps: CoreDeps, answer: StoredAnswer): Promise<void> {
    await deps.db
      .update(idempotencyKeys)
      .set({ answerStatus: answer.status, answerBody: answer.body })
      .where(and(this.mine(), isNull(idempotencyKeys.answerBody)));
  }

  /** Frees the key after a refusal or failure (nothing was written): a retry runs afresh. */
  async release(deps: CoreDeps): Promise<void> {
    await deps.db
      .delete(idempotencyKeys)
      .where(and(this.mine(), isNull(idempotencyKeys.answerBody)));
  }

  private mine() {
    return and(
      eq(idempotencyKeys.ownerId, this.request.ownerId),
      eq(idempotencyKeys.key, this.request.key),
      eq(idempotencyKeys.claim, this.claim),
    );
  }

  private lost() {
    return new CoreError(
      "idempotency_key_in_use",
      `This request's ${IDEMPOTENCY_KEY_HEADER} was taken over by a retry; nothing was done`,
      { retryAfterSeconds: 1 },
    );
  }
}

/** Keys past their 24 hours, for the worker's cleanup. */
export async function deleteExpiredIdempotencyKeys(deps: CoreDeps, now: Date): Promise<number> {
  const gone = await deps.db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expiresAt, now))
    .returning({ key: sql<number>`1` });
  return gone.length;
}
