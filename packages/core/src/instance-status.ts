import type { Readiness, WebhookState } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq, sql } from "drizzle-orm";
import rootPackage from "../../../package.json" with { type: "json" };
import type { CoreDeps } from "./deps";
import { checkReadiness } from "./health";
import { type JobQueueDepth, readJobQueue } from "./jobs/job-queue";
import { explainDeliveryError } from "./webhooks/explain-delivery-error";

const { agents, users, webhookDeliveries, webhooks } = schema;

/** How many of a webhook's latest attempted deliveries its health is judged on. */
export const HEALTH_WINDOW = 20;

export interface InstanceStatus {
  version: string;
  node: string;
  /** When the process answering started. */
  startedAt: string;
  readiness: Readiness;
  queue: JobQueueDepth;
  /**
   * The viewer's agents whose webhook is disabled, has deliveries waiting for a retry,
   * or failed any of its latest HEALTH_WINDOW attempted deliveries; worst first.
   */
  failingWebhooks: {
    agentId: string;
    displayName: string | null;
    state: WebhookState;
    consecutiveFailures: number;
    /** Deliveries whose last attempt failed and that wait for their next one. */
    retrying: number;
    /** Of the latest `recent` attempted deliveries, the share whose latest attempt failed (0–1). */
    failureRate: number;
    recent: number;
    lastFailureAt: string | null;
    problem: string | null;
  }[];
}

/**
 * The console's status page for an owner: which version runs and since when, whether it is ready
 * (database, migrations), how far behind the job queue is, and which of the owner's webhooks
 * need attention. Queue figures are the instance's; webhooks are only the owner's own.
 */
export async function instanceStatus(deps: CoreDeps, ownerId: string): Promise<InstanceStatus> {
  const [readiness, queue, hooks] = await Promise.all([
    checkReadiness(deps),
    readJobQueue(deps).catch(() => ({ ready: 0, oldestSeconds: 0, failed: 0 })),
    // Per webhook of the owner: retrying deliveries, and the latest HEALTH_WINDOW attempted
    // deliveries (by seq) with how many of them last failed.
    deps.db
      .select({
        agentId: webhooks.agentId,
        displayName: users.displayName,
        state: webhooks.state,
        consecutiveFailures: webhooks.consecutiveFailures,
        lastFailureAt: webhooks.lastFailureAt,
        lastError: webhooks.lastError,
        retrying: sql<number>`(select count(*)::int from ${webhookDeliveries} d
          where d.agent_id = ${webhooks.agentId} and d.status = 'pending' and d.attempts > 0)`,
        recent: sql<{ n: number; failed: number }>`(select json_build_object(
            'n', count(*), 'failed', count(*) filter (where r.status <> 'succeeded'))
          from (select d.status from ${webhookDeliveries} d
            where d.agent_id = ${webhooks.agentId} and d.attempts > 0
            order by d.event_seq desc limit ${HEALTH_WINDOW}) r)`,
      })
      .from(webhooks)
      .innerJoin(agents, eq(agents.id, webhooks.agentId))
      .innerJoin(users, eq(users.id, webhooks.agentId))
      .where(eq(agents.ownerId, ownerId)),
  ]);
  const severity = { disabled: 0, active: 1 };
  return {
    version: rootPackage.version,
    node: process.version,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    readiness,
    queue,
    failingWebhooks: hooks
      .map(({ lastError, lastFailureAt, recent, ...hook }) => ({
        ...hook,
        failureRate: recent.n > 0 ? recent.failed / recent.n : 0,
        recent: recent.n,
        lastFailureAt: lastFailureAt?.toISOString() ?? null,
        problem: explainDeliveryError(lastError, null),
      }))
      .filter(
        (hook) =>
          hook.state !== "active" ||
          hook.consecutiveFailures > 0 ||
          hook.retrying > 0 ||
          hook.failureRate > 0,
      )
      .sort(
        (a, b) =>
          severity[a.state] - severity[b.state] ||
          b.failureRate - a.failureRate ||
          b.consecutiveFailures - a.consecutiveFailures,
      ),
  };
}
