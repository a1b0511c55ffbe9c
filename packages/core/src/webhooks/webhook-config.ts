import type { AgentWebhook, AgentWebhookWithSecret } from "@switchboard/contract";
import type { Executor } from "@switchboard/db";
import { schema } from "@switchboard/db";
import { and, eq, isNull, notLike, or, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { agentOwnerTopics } from "../events/agent-control";
import { drainTopics, notifyTopics } from "../events/notifier";
import { checkWebhookTarget, checkWebhookUrl, type UrlPolicy } from "../net/address-policy";
import { newSecret } from "../secrets";
import { currentSealPrefix, openSecret, sealSecret } from "./sealed-secret";

const { webhooks, webhookDeliveries } = schema;

/** How long the previous secret keeps signing after a rotation. */
export const ROTATION_GRACE_MS = 24 * 3600_000;

export type WebhookRow = typeof webhooks.$inferSelect;

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** What the owner's open console re-reads when an agent's webhook is set, removed or resumed. */
const webhookChange = (agentId: string) => `webhook:${agentId}` as const;

export function toAgentWebhook(row: WebhookRow, now: Date): AgentWebhook {
  const grace =
    row.rotationGraceUntil && row.rotationGraceUntil > now ? row.rotationGraceUntil : null;
  return {
    url: row.url,
    state: row.state,
    consecutiveFailures: row.consecutiveFailures,
    lastDeliveryAt: iso(row.lastDeliveryAt),
    lastSuccessAt: iso(row.lastSuccessAt),
    lastFailureAt: iso(row.lastFailureAt),
    lastError: row.lastError,
    rotationGraceUntil: iso(grace),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function webhookPolicy(deps: CoreDeps): UrlPolicy {
  return {
    allowInsecureHosts: deps.config.WEBHOOK_ALLOW_INSECURE_HOSTS,
    resolveTimeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
  };
}

async function readWebhook(deps: CoreDeps, agentId: string): Promise<WebhookRow | undefined> {
  const [row] = await deps.db.select().from(webhooks).where(eq(webhooks.agentId, agentId));
  return row;
}

/** `GET /webhook`. */
export async function getWebhook(deps: CoreDeps, agentId: string): Promise<AgentWebhook | null> {
  const row = await readWebhook(deps, agentId);
  return row ? toAgentWebhook(row, deps.clock.now()) : null;
}

/**
 * `PUT /webhook`: sets the URL (checked: https, no credentials, a public host whose name does
 * not resolve to a private address now) with a new secret, shown once. A new webhook is active;
 * one set anew keeps its state, as the spec's table has it: a disabled webhook stays disabled
 * with its failure count and dead events until the owner's "Resume and retry", the only way
 * back (the answer's `state` says so). A first webhook receives only events after now:
 * deliveries are made when an event commits, for the webhooks that exist then.
 */
export async function putWebhook(
  deps: CoreDeps,
  agentId: string,
  url: string,
): Promise<AgentWebhookWithSecret> {
  const policy = webhookPolicy(deps);
  const parsed = checkWebhookUrl(url, policy);
  await checkWebhookTarget(parsed, policy);
  const checked = parsed.toString();
  const secret = newSecret("whsec_");
  const sealed = sealSecret(deps, agentId, secret);
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(webhooks)
    .values({ agentId, url: checked, secret: sealed, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: webhooks.agentId,
      set: {
        url: checked,
        secret: sealed,
        previousSecret: null,
        rotationGraceUntil: null,
        // A new URL starts a new count, but for a disabled webhook: its count says why it is off.
        consecutiveFailures: sql`case when ${webhooks.state} = 'disabled' then ${webhooks.consecutiveFailures} else 0 end`,
        updatedAt: now,
      },
    })
    .returning();
  await notifyTopics(deps.db, await agentOwnerTopics(deps.db, [agentId], webhookChange));
  return { webhook: toAgentWebhook(row as WebhookRow, now), secret };
}

/** `DELETE /webhook`: `{deleted}` says whether there was one; its deliveries go with it. */
export async function deleteWebhook(
  deps: CoreDeps,
  agentId: string,
): Promise<{ deleted: boolean }> {
  return deps.db.transaction(async (tx) => {
    const gone = await tx
      .delete(webhooks)
      .where(eq(webhooks.agentId, agentId))
      .returning({ agentId: webhooks.agentId });
    await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.agentId, agentId));
    await notifyTopics(tx, await agentOwnerTopics(tx, [agentId], webhookChange));
    return { deleted: gone.length > 0 };
  });
}

/**
 * `POST /webhook/rotate`: a new secret; for 24 h the previous one signs every delivery too. One
 * statement swaps them (the row's own current secret becomes the previous one), so concurrent
 * rotations chain instead of one overwriting the other's secret unseen.
 */
export async function rotateWebhookSecret(
  deps: CoreDeps,
  agentId: string,
): Promise<AgentWebhookWithSecret> {
  const secret = newSecret("whsec_");
  const sealed = sealSecret(deps, agentId, secret);
  const now = deps.clock.now();
  const rotate = (db: Executor) =>
    db
      .update(webhooks)
      .set({
        secret: sealed,
        previousSecret: sql`${webhooks.secret}`,
        rotationGraceUntil: new Date(now.getTime() + ROTATION_GRACE_MS),
        updatedAt: now,
      })
      .where(eq(webhooks.agentId, agentId))
      .returning();
  const answer = (row: WebhookRow | undefined) => {
    if (!row) throw new CoreError("not_found", "This agent has no webhook; PUT one first");
    return { webhook: toAgentWebhook(row, now), secret };
  };
  const write = deps.idempotentWrite;
  if (!write) return answer((await rotate(deps.db))[0]);
  // With an Idempotency-Key, the answer (the new secret) is stored with the rotation: a retry
  // gets the same secret back instead of rotating away the one it never saw.
  return deps.db.transaction(async (tx) => {
    const result = answer((await rotate(tx))[0]);
    await write.seal(tx, result, sealSecret(deps, agentId, JSON.stringify(result)));
    return result;
  });
}

/** The secrets that sign an agent's deliveries now: the current one, and the previous one in its grace. */
export async function signingSecrets(
  deps: CoreDeps,
  row: WebhookRow,
  now: Date,
): Promise<string[]> {
  const secrets = [openSecret(deps, row.agentId, row.secret)];
  if (row.previousSecret && row.rotationGraceUntil && row.rotationGraceUntil > now)
    secrets.push(openSecret(deps, row.agentId, row.previousSecret));
  return secrets;
}

/** The secrets that sign the agent's deliveries now; `[]` when it has no webhook. */
export async function agentSigningSecrets(deps: CoreDeps, agentId: string): Promise<string[]> {
  const row = await readWebhook(deps, agentId);
  return row ? signingSecrets(deps, row, deps.clock.now()) : [];
}

/**
 * Seals the webhook secrets still kept in plain text (from before sealing) or under `older` key
 * material (a key being retired, settings.ts) under SECRETS_KEY; run by every worker at start.
 * Each row is changed only if it still holds what was read. A value sealed under a key neither
 * current nor given throws (KeyUnavailableError): nothing is lost, the key is not retired.
 */
export async function sealStoredWebhookSecrets(
  deps: CoreDeps,
  older: string[] = [],
): Promise<number> {
  const sealedNow = `${currentSealPrefix(deps)}%`;
  const rows = await deps.db
    .select()
    .from(webhooks)
    .where(or(notLike(webhooks.secret, sealedNow), notLike(webhooks.previousSecret, sealedNow)));
  let sealed = 0;
  for (const row of rows) {
    const reseal = (value: string | null) =>
      value === null
        ? null
        : sealSecret(deps, row.agentId, openSecret(deps, row.agentId, value, older));
    const changed = await deps.db
      .update(webhooks)
      .set({ secret: reseal(row.secret) as string, previousSecret: reseal(row.previousSecret) })
      .where(
        and(
          eq(webhooks.agentId, row.agentId),
          eq(webhooks.secret, row.secret),
          row.previousSecret === null
            ? isNull(webhooks.previousSecret)
            : eq(webhooks.previousSecret, row.previousSecret),
        ),
      )
      .returning({ agentId: webhooks.agentId });
    sealed += changed.length;
  }
  return sealed;
}

/**
 * The owner's "Resume and retry": a disabled webhook is active again with a clean failure count,
 * and every dead event is delivered again from its first attempt: those that failed and those
 * committed while it was off (held, never attempted), all in seq order by the agent's drain.
 */
export async function resumeWebhook(
  deps: CoreDeps,
  agentId: string,
): Promise<{ webhook: AgentWebhook; requeued: number }> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhooks)
      .set({ state: "active", consecutiveFailures: 0, updatedAt: now })
      .where(eq(webhooks.agentId, agentId))
      .returning();
    if (!row) throw new CoreError("not_found", "This agent has no webhook");
    const requeued = await tx
      .update(webhookDeliveries)
      .set({ status: "pending", attempts: 0, error: null, nextAttemptAt: now, updatedAt: now })
      .where(and(eq(webhookDeliveries.agentId, agentId), eq(webhookDeliveries.status, "dead")))
      .returning({ id: webhookDeliveries.id });
    if (requeued.length > 0) await notifyTopics(tx, drainTopics([agentId]));
    await notifyTopics(tx, await agentOwnerTopics(tx, [agentId], webhookChange));
    return { webhook: toAgentWebhook(row, now), requeued: requeued.length };
  });
}

/**
 * How many of the agent's events "Resume and retry" would send: every dead delivery, of which
 * `held` were committed while the webhook was off and never attempted.
 */
export async function countWaitingDeliveries(
  deps: CoreDeps,
  agentId: string,
): Promise<{ waiting: number; held: number }> {
  const [row] = await deps.db
    .select({
      waiting: sql<number>`count(*)::int`,
      held: sql<number>`(count(*) filter (where ${webhookDeliveries.attempts} = 0))::int`,
    })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.agentId, agentId), eq(webhookDeliveries.status, "dead")));
  return { waiting: row?.waiting ?? 0, held: row?.held ?? 0 };
}
