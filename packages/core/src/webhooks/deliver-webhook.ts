import { createHmac } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { schema } from "@switchboard/db";
import { and, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { toAgentEvent } from "../events/append-event";
import { enqueueJob } from "../jobs/enqueue-job";
import { resolveDeliveryAddress } from "./address-policy";
import { webhookPolicy } from "./webhook-config";

const { events, webhookDeliveries, webhooks } = schema;

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

export interface DeliveryOutcome {
  status: "succeeded" | "failed" | "dead" | "skipped";
  httpStatus?: number;
  error?: string;
}

/**
 * The `webhook_deliver` job: one attempt to POST one event to the agent's webhook. The host is
 * resolved and checked again (public addresses only, unless allowed for development) and the
 * request connects to exactly that address; redirects are not followed. A 2xx within the timeout
 * succeeds; anything else fails and is retried on the schedule until the event is dead; 410 kills
 * the event and disables the webhook, as do WEBHOOK_DISABLE_AFTER consecutive failures.
 */
export async function deliverWebhook(deps: CoreDeps, deliveryId: number): Promise<DeliveryOutcome> {
  const [found] = await deps.db
    .select({ delivery: webhookDeliveries, webhook: webhooks, event: events })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.agentId, webhookDeliveries.agentId))
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, deliveryId));
  if (found?.delivery.status !== "pending") return { status: "skipped" };
  const { delivery, webhook, event } = found;
  const now = deps.clock.now();
  if (webhook.state !== "active") {
    // Kept for "Resume and retry".
    await settle(deps, delivery.id, { status: "dead", error: `webhook ${webhook.state}` });
    return { status: "dead", error: `webhook ${webhook.state}` };
  }

  const attempt = delivery.attempts + 1;
  const body = JSON.stringify(toAgentEvent(event));
  const secrets = [webhook.secret];
  if (webhook.previousSecret && webhook.rotationGraceUntil && webhook.rotationGraceUntil > now)
    secrets.push(webhook.previousSecret);
  const started = performance.now();
  const answer = await post(deps, webhook.url, body, {
    "Content-Type": "application/json",
    "X-Svc-Event-Id": event.id,
    "X-Svc-Event-Type": event.type,
    "X-Svc-Delivery-Attempt": String(attempt),
    "X-Svc-Signature": signDelivery(body, secrets, Math.floor(now.getTime() / 1000)),
  });
  const latencyMs = Math.round(performance.now() - started);
  const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
  const gone = answer.status === 410;
  const error = ok ? null : (answer.error ?? `answered ${answer.status}${gone ? " (gone)" : ""}`);

  return deps.db.transaction(async (tx) => {
    const [hook] = await tx
      .update(webhooks)
      .set(
        ok
          ? { lastDeliveryAt: now, lastSuccessAt: now, consecutiveFailures: 0, updatedAt: now }
          : {
              lastDeliveryAt: now,
              lastFailureAt: now,
              lastError: error,
              consecutiveFailures: sql`${webhooks.consecutiveFailures} + 1`,
              updatedAt: now,
            },
      )
      .where(eq(webhooks.agentId, webhook.agentId))
      .returning();
    const disable =
      !ok && (gone || (hook?.consecutiveFailures ?? 0) >= deps.config.WEBHOOK_DISABLE_AFTER);
    if (disable)
      await tx
        .update(webhooks)
        .set({ state: "disabled", updatedAt: now })
        .where(eq(webhooks.agentId, webhook.agentId));
    const retryIn = deps.config.WEBHOOK_RETRY_SCHEDULE_S[attempt - 1];
    const status = ok
      ? "succeeded"
      : gone || disable || attempt >= maxAttempts(deps) || retryIn === undefined
        ? "dead"
        : "pending";
    const nextAttemptAt =
      status === "pending" ? new Date(now.getTime() + (retryIn ?? 0) * 1000) : null;
    await tx
      .update(webhookDeliveries)
      .set({
        status,
        attempts: attempt,
        httpStatus: answer.status ?? null,
        latencyMs,
        error,
        nextAttemptAt,
        updatedAt: now,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
    if (nextAttemptAt)
      await enqueueJob(
        tx,
        "webhook_deliver",
        { deliveryId: delivery.id },
        {
          queue: `webhook:${webhook.agentId}`,
          jobKey: `webhook:${delivery.id}`,
          runAt: nextAttemptAt,
        },
      );
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

/** One POST to the checked address, no redirects, bounded by WEBHOOK_TIMEOUT_MS. */
async function post(
  deps: CoreDeps,
  target: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status?: number; error?: string }> {
  const url = new URL(target);
  let pinned: { address: string; family: 4 | 6 };
  try {
    pinned = await resolveDeliveryAddress(url, webhookPolicy(deps));
  } catch (error) {
    return { error: (error as Error).message };
  }
  // The connection goes to the address just checked, whatever DNS says a moment later.
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": Buffer.byteLength(body) },
        lookup,
        timeout: deps.config.WEBHOOK_TIMEOUT_MS,
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode }));
        response.on("error", (error) => resolve({ error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${deps.config.WEBHOOK_TIMEOUT_MS} ms`));
    }, deps.config.WEBHOOK_TIMEOUT_MS);
    request.on("error", (error) => resolve({ error: error.message }));
    request.on("close", () => clearTimeout(timer));
    request.end(body);
  });
}
