import type { AgentEvent } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { newId } from "../ids";
import { deliveryRequest, postWebhook } from "./deliver-webhook";
import { explainDeliveryError } from "./explain-delivery-error";
import { signingSecrets } from "./webhook-config";

const { webhooks } = schema;

/** The type of the console's test event; it is never in the event log. */
export const TEST_EVENT_TYPE = "webhook.test";

/** One test request and what came back, for the owner to read. */
export interface WebhookTestResult {
  ok: boolean;
  request: { url: string; headers: Record<string, string>; body: string };
  httpStatus: number | null;
  latencyMs: number;
  /** The start of the answer's body. */
  excerpt: string | null;
  /** What went wrong, in words; null when it worked. */
  problem: string | null;
  /** The raw error behind `problem`. */
  error: string | null;
}

/**
 * The owner's "Send test event": one `webhook.test` event, signed and sent exactly like a real
 * delivery (same checks of the resolved address, same headers, same timeout), answered here at
 * once. It is not in the event log (seq 0) and changes nothing: no retry, no failure count.
 */
export async function sendWebhookTestEvent(
  deps: CoreDeps,
  agentId: string,
): Promise<WebhookTestResult> {
  const [webhook] = await deps.db.select().from(webhooks).where(eq(webhooks.agentId, agentId));
  if (!webhook) throw new CoreError("not_found", "This agent has no webhook; set its URL first");
  const now = deps.clock.now();
  const event: AgentEvent = {
    id: newId("evt"),
    seq: 0,
    type: TEST_EVENT_TYPE,
    ts: now.toISOString(),
    agentId,
    payload: { test: true, message: "A test event sent from the Switchboard console" },
  };
  const { body, headers } = deliveryRequest(
    event,
    await signingSecrets(deps, webhook, now),
    now,
    1,
  );
  const started = performance.now();
  const answer = await postWebhook(deps, webhook.url, body, headers);
  const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
  const httpStatus = answer.status ?? null;
  return {
    ok,
    request: { url: webhook.url, headers, body },
    httpStatus,
    latencyMs: Math.round(performance.now() - started),
    excerpt: answer.excerpt ?? null,
    problem: ok ? null : explainDeliveryError(answer.error ?? null, httpStatus),
    error: answer.error ?? null,
  };
}
