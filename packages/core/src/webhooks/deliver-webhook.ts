import { createHmac } from "node:crypto";
import type { AgentEvent } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { toVisibleEvent } from "../events/event-visibility";
import { notifyTopics, type Topic, userTopic } from "../events/notifier";
import { enqueueRetryDrain } from "../jobs/drain-jobs";
import { log } from "../log";
import { metrics } from "../metrics";
import { pinnedRequest } from "../net/pinned-request";
import { DRAIN_BATCH, deliveryById, dueDeliveries, type LoadedDelivery } from "./due-deliveries";
import { explainDeliveryError } from "./explain-delivery-error";
import { emailOwnerAboutWebhook, warnAfter } from "./owner-alerts";
import { retryDelayMs } from "./retry-delay";
import { settleDeliveredAttempt } from "./success-settles";
import { signingSecrets, webhookPolicy } from "./webhook-config";

const { webhookDeliveries, webhooks } = schema;

/** Attempt 1 plus one retry per entry of the schedule (the spec's 8 attempts). */
const maxAttempts = (deps: CoreDeps) => deps.config.WEBHOOK_RETRY_SCHEDULE_S.length + 1;

/** `t=<unix>,v1=<hmac>` with one `v1` per secret (two during a rotation's grace). */
export function signDelivery(body: string, secrets: string[], unixSeconds: number): string {
  const signed = `${unixSeconds}.${body}`;
  const v1 = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(signed).digest("hex")}`,
  );
  return [`t=${unixSeconds}`, ...v1].join(",");
}

/**
 * The request a delivery sends for one event: its JSON body and the spec's headers, signed with
 * each secret at `now`. `switchboard listen` sends exactly this to a local URL.
 */
export function deliveryRequest(
  event: AgentEvent,
  secrets: string[],
  now: Date,
  attempt: number,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  return {
    body,
    headers: {
      "Content-Type": "application/json",
      "X-Svc-Event-Id": event.id,
      "X-Svc-Event-Type": event.type,
      "X-Svc-Delivery-Attempt": String(attempt),
      "X-Svc-Signature": signDelivery(body, secrets, Math.floor(now.getTime() / 1000)),
    },
  };
}

export interface DeliveryOutcome {
  /**
   * `withheld`: the person's grant no longer shows the event; its delivery is dropped.
   * `internal_error`: the attempt was made but could not be recorded (the drain moves on).
   */
  status: "succeeded" | "failed" | "dead" | "skipped" | "withheld" | "internal_error";
  httpStatus?: number;
  error?: string;
  /** For a delivered event: milliseconds from the event's commit to the receiver's answer. */
  lagMs?: number;
}

/**
 * One attempt at one delivery by its id: `webhook_deliver` jobs enqueued before drains existed,
 * and tests. See `attemptDelivery`.
 */
export async function deliverWebhook(deps: CoreDeps, deliveryId: number): Promise<DeliveryOutcome> {
  const found = await deliveryById(deps, deliveryId);
  if (!found) return { status: "skipped" };
  return attemptDelivery(deps, found);
}

/**
 * Delivers the agent's due deliveries one at a time in event order, a batch read at a time; its
 * caller holds the agent's drain lease (webhook-drains.ts). A failed attempt is rescheduled (its
 * own timer wakes a drain then) and the drain goes on with the next event; after anything but a
 * success the batch is read again, so a webhook that was just disabled stops the drain. After
 * `sliceMs` it returns with `more`, so one busy agent cannot hold a slot while others wait.
 */
export async function drainWebhook(
  deps: CoreDeps,
  agentId: string,
  sliceMs = 1000,
  onOutcome: (outcome: DeliveryOutcome, deliveryId: number) => void = () => {},
): Promise<{ attempts: number; more: boolean }> {
  const started = performance.now();
  let attempts = 0;
  // Deliveries whose attempt could not be recorded: not tried again by this drain (their own
  // timer retries them), so one can never hold up the events behind it.
  const unrecorded: number[] = [];
  for (;;) {
    const due = await dueDeliveries(deps, agentId, unrecorded);
    // The webhook's secrets are opened once per batch: every delivery in it has the same row.
    const secrets = due[0] && (await signingSecrets(deps, due[0].webhook, deps.clock.now()));
    let settled = true;
    for (const found of due) {
      const outcome = await attemptDelivery(deps, found, secrets);
      attempts += 1;
      if (outcome.status === "internal_error") unrecorded.push(found.delivery.id);
      onOutcome(outcome, found.delivery.id);
      if (outcome.status !== "succeeded") settled = false;
      if (performance.now() - started > sliceMs) return { attempts, more: true };
      if (!settled) break;
    }
    if (settled && due.length < DRAIN_BATCH) return { attempts, more: false };
  }
}

/**
 * One attempt to POST one event to the agent's webhook. The host is resolved and checked again
 * (public addresses only, unless allowed for development) and the request connects to exactly
 * that address; redirects are not followed. A 2xx within the timeout succeeds; anything else
 * fails and is retried on the schedule (retry-delay.ts) until the event is dead; 410 kills the
 * event and disables the webhook, as do WEBHOOK_DISABLE_AFTER consecutive failures (a 429 is
 * not one: the receiver is up and asked to slow down).
 */
async function attemptDelivery(
  deps: CoreDeps,
  found: LoadedDelivery,
  openedSecrets?: string[],
): Promise<DeliveryOutcome> {
  if (found.delivery.status !== "pending") return { status: "skipped" };
  const { delivery, webhook } = found;
  const now = deps.clock.now();
  // Every attempt shows the event as the person's grant allows at that moment.
  const event = toVisibleEvent(found.stored, found.scopes);
  if (!event) {
    await deps.db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id));
    await notifyTopics(deps.db, ownerWake(found));
    return { status: "withheld" };
  }
  if (webhook.state !== "active") {
    // Kept for "Resume and retry".
    await settle(deps, delivery.id, { status: "dead", error: `webhook ${webhook.state}` });
    await notifyTopics(deps.db, ownerWake(found));
    return { status: "dead", error: `webhook ${webhook.state}` };
  }

  const attempt = delivery.attempts + 1;
  const secrets = openedSecrets ?? (await signingSecrets(deps, webhook, now));
  const request = deliveryRequest(event, secrets, now, attempt);
  const started = performance.now();
  const answer = await postWebhook(deps, webhook.url, request.body, request.headers);
  const latencyMs = Math.round(performance.now() - started);
  const attemptMade: AttemptMade = { attempt, answer, latencyMs, headers: request.headers, now };
  try {
    return await recordAttempt(deps, found, attemptMade);
  } catch (error) {
    return recordInternalError(deps, found, attemptMade, error);
  }
}

/**
 * Every settled attempt wakes the owner's open console (the webhook page, its banner, the status
 * page) in the statement or transaction that records it: the pages re-read instead of polling.
 */
function ownerWake(found: LoadedDelivery): Topic[] {
  return found.ownerId ? [userTopic(found.ownerId, `webhook:${found.webhook.agentId}`)] : [];
}

/** One POST made: which attempt, the receiver's answer, and what was sent. */
interface AttemptMade {
  attempt: number;
  answer: PostAnswer;
  latencyMs: number;
  headers: Record<string, string>;
  now: Date;
}

/**
 * Settles an attempt: a success in one statement; a failure schedules the next attempt, or
 * kills the event, and (but for a 429) counts towards disabling the webhook.
 */
async function recordAttempt(
  deps: CoreDeps,
  found: LoadedDelivery,
  { attempt, answer, latencyMs, headers, now }: AttemptMade,
): Promise<DeliveryOutcome> {
  const { delivery, webhook } = found;
  const request = { headers };
  const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
  const gone = answer.status === 410;
  const error = ok ? null : (answer.error ?? `answered ${answer.status}${gone ? " (gone)" : ""}`);

  if (ok) {
    // The common case: settled in a statement shared with the process's other drains.
    await settleDeliveredAttempt(deps, {
      deliveryId: delivery.id,
      agentId: webhook.agentId,
      attempt,
      httpStatus: answer.status ?? 0,
      latencyMs,
      at: now.toISOString(),
      requestHeaders: JSON.stringify(request.headers),
      responseExcerpt: answer.excerpt ?? null,
      wake: ownerWake(found),
    });
    return {
      status: "succeeded",
      httpStatus: answer.status,
      lagMs: deps.clock.now().getTime() - found.stored.ts.getTime(),
    };
  }

  // A receiver that answers 429 is up and asks to slow down: not a failure towards disabling.
  const counts = answer.status !== 429;
  return deps.db.transaction(async (tx) => {
    const [hook] = await tx
      .update(webhooks)
      .set({
        lastDeliveryAt: now,
        lastFailureAt: now,
        lastError: error,
        ...(counts && { consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1` }),
        updatedAt: now,
      })
      .where(eq(webhooks.agentId, webhook.agentId))
      .returning();
    const failures = hook?.consecutiveFailures ?? 0;
    const disable = gone || (counts && failures >= deps.config.WEBHOOK_DISABLE_AFTER);
    const turnedOff =
      disable &&
      (
        await tx
          .update(webhooks)
          .set({ state: "disabled", updatedAt: now })
          .where(and(eq(webhooks.agentId, webhook.agentId), eq(webhooks.state, "active")))
          .returning({ agentId: webhooks.agentId })
      ).length > 0;
    // The owner hears of it once at half the failures that disable it, and once when it is off.
    if (turnedOff || (counts && !disable && failures === warnAfter(deps)))
      await emailOwnerAboutWebhook(tx, deps, now, webhook.agentId, {
        kind: turnedOff ? "disabled" : "failing",
        failures,
        problem: explainDeliveryError(error, answer.status ?? null),
      });
    const retryIn = deps.config.WEBHOOK_RETRY_SCHEDULE_S[attempt - 1];
    const status =
      gone || disable || attempt >= maxAttempts(deps) || retryIn === undefined ? "dead" : "pending";
    const nextAttemptAt =
      status === "pending"
        ? new Date(now.getTime() + retryDelayMs(retryIn ?? 0, answer, now))
        : null;
    await tx
      .update(webhookDeliveries)
      .set({
        status,
        attempts: attempt,
        httpStatus: answer.status ?? null,
        latencyMs,
        error,
        attemptedAt: now,
        requestHeaders: request.headers,
        responseExcerpt: answer.excerpt ?? null,
        nextAttemptAt,
        updatedAt: now,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
    if (nextAttemptAt) await enqueueRetryDrain(tx, webhook.agentId, delivery.id, nextAttemptAt);
    await notifyTopics(tx, ownerWake(found));
    // A disabled webhook's other waiting deliveries die with it (resume requeues them).
    if (disable)
      await tx
        .update(webhookDeliveries)
        .set({ status: "dead", nextAttemptAt: null, updatedAt: now })
        .where(
          and(
            eq(webhookDeliveries.agentId, webhook.agentId),
            eq(webhookDeliveries.status, "pending"),
          ),
        );
    return {
      status: status === "pending" ? "failed" : status,
      httpStatus: answer.status,
      ...(error && { error }),
    };
  });
}

/** What an attempt records when recording it failed: the error, and nothing of the answer. */
const UNRECORDED = "internal error: the attempt could not be recorded";

/**
 * Recording an attempt failed (a database error, or something in the answer the database
 * refused): counted, logged (the error's kind only, never its text, which may hold the
 * answer), and recorded again without anything from the receiver, as a failed attempt on the
 * schedule (or delivered, when the receiver answered 2xx). Never throws: when even that fails,
 * the drain moves on and the delivery's timer tries it again later.
 */
async function recordInternalError(
  deps: CoreDeps,
  found: LoadedDelivery,
  made: AttemptMade,
  cause: unknown,
): Promise<DeliveryOutcome> {
  metrics.webhookRecordFailures.inc();
  const failure = cause as { name?: string; code?: string; cause?: { code?: string } };
  log.error(
    {
      agentId: found.webhook.agentId,
      deliveryId: found.delivery.id,
      error: failure?.name,
      code: failure?.cause?.code ?? failure?.code,
    },
    "webhook attempt not recorded",
  );
  const ok =
    made.answer.status !== undefined && made.answer.status >= 200 && made.answer.status < 300;
  const retryIn = deps.config.WEBHOOK_RETRY_SCHEDULE_S[made.attempt - 1];
  const pending = !ok && retryIn !== undefined && made.attempt < maxAttempts(deps);
  const nextAttemptAt = pending
    ? new Date(made.now.getTime() + retryDelayMs(retryIn ?? 0, made.answer, made.now))
    : // Not recorded at all: the delivery's timer tries again after the first retry interval.
      new Date(made.now.getTime() + (deps.config.WEBHOOK_RETRY_SCHEDULE_S[0] ?? 60) * 1000);
  try {
    await deps.db.transaction(async (tx) => {
      await tx
        .update(webhookDeliveries)
        .set({
          status: ok ? "succeeded" : pending ? "pending" : "dead",
          attempts: made.attempt,
          httpStatus: made.answer.status ?? null,
          latencyMs: made.latencyMs,
          error: UNRECORDED,
          attemptedAt: made.now,
          requestHeaders: made.headers,
          responseExcerpt: null,
          nextAttemptAt: pending ? nextAttemptAt : null,
          updatedAt: made.now,
        })
        .where(eq(webhookDeliveries.id, found.delivery.id));
      if (pending)
        await enqueueRetryDrain(tx, found.webhook.agentId, found.delivery.id, nextAttemptAt);
      await notifyTopics(tx, ownerWake(found));
    });
  } catch {
    await enqueueRetryDrain(deps.db, found.webhook.agentId, found.delivery.id, nextAttemptAt).catch(
      () => {},
    );
  }
  return { status: "internal_error", httpStatus: made.answer.status, error: UNRECORDED };
}

async function settle(
  deps: CoreDeps,
  id: number,
  change: { status: "dead"; error: string },
): Promise<void> {
  await deps.db
    .update(webhookDeliveries)
    .set({ ...change, nextAttemptAt: null, updatedAt: deps.clock.now() })
    .where(eq(webhookDeliveries.id, id));
}

/** How much of a receiver's answer is kept for the owner to read. */
const EXCERPT_BYTES = 1024;

/** Control characters other than tab, newline and carriage return; lone UTF-16 surrogates. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The start of a receiver's answer as it may be stored and shown: at most EXCERPT_BYTES of it,
 * decoded as UTF-8 (broken sequences become U+FFFD), without NUL and other control characters
 * (Postgres text cannot hold NUL) or unpaired surrogates. Whatever a receiver answers, its
 * excerpt can always be recorded.
 */
export function answerExcerpt(bytes: Buffer): string {
  return bytes
    .subarray(0, EXCERPT_BYTES)
    .toString("utf8")
    .replace(CONTROL, "")
    .replace(LONE_SURROGATE, "\uFFFD")
    .slice(0, EXCERPT_BYTES);
}

interface PostAnswer {
  status?: number;
  error?: string;
  excerpt?: string;
  /** The receiver's `Retry-After` header, as sent. */
  retryAfter?: string;
}

/**
 * One POST to the checked address, no redirects, bounded by WEBHOOK_TIMEOUT_MS; the answer's
 * first KB is kept, sanitised, as an excerpt for the owner's console.
 */
export async function postWebhook(
  deps: CoreDeps,
  target: string,
  body: string,
  headers: Record<string, string>,
): Promise<PostAnswer> {
  const answer = await pinnedRequest(new URL(target), {
    method: "POST",
    headers,
    body,
    timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
    policy: webhookPolicy(deps),
    excerptBytes: EXCERPT_BYTES,
    reuseConnection: true,
  });
  const retryAfter = answer.ok ? answer.headers["retry-after"] : undefined;
  return answer.ok
    ? {
        status: answer.status,
        excerpt: answerExcerpt(answer.body),
        ...(retryAfter && { retryAfter }),
      }
    : { error: answer.error?.replace(CONTROL, "").slice(0, EXCERPT_BYTES) };
}
