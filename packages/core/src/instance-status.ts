import type { Readiness } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, gt, ne, or } from "drizzle-orm";
import rootPackage from "../../../package.json" with { type: "json" };
import type { CoreDeps } from "./deps";
import { checkReadiness } from "./health";
import { type JobQueueDepth, readJobQueue } from "./jobs/job-queue";
import { explainDeliveryError } from "./webhooks/explain-delivery-error";

const { agents, users, webhooks } = schema;

export interface InstanceStatus {
  version: string;
  node: string;
  /** When the process answering started. */
  startedAt: string;
  readiness: Readiness;
  queue: JobQueueDepth;
  /** The viewer's agents whose webhook is failing, paused or disabled, worst first. */
  failingWebhooks: {
    agentId: string;
    displayName: string | null;
    state: "active" | "paused" | "disabled";
    consecutiveFailures: number;
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
    deps.db
      .select({
        agentId: webhooks.agentId,
        displayName: users.displayName,
        state: webhooks.state,
        consecutiveFailures: webhooks.consecutiveFailures,
        lastFailureAt: webhooks.lastFailureAt,
        lastError: webhooks.lastError,
      })
      .from(webhooks)
      .innerJoin(agents, eq(agents.id, webhooks.agentId))
      .innerJoin(users, eq(users.id, webhooks.agentId))
      .where(
        and(
          eq(agents.ownerId, ownerId),
          or(ne(webhooks.state, "active"), gt(webhooks.consecutiveFailures, 0)),
        ),
      ),
  ]);
  const severity = { disabled: 0, paused: 1, active: 2 };
  return {
    version: rootPackage.version,
    node: process.version,
    startedAt: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    readiness,
    queue,
    failingWebhooks: hooks
      .sort(
        (a, b) =>
          severity[a.state] - severity[b.state] || b.consecutiveFailures - a.consecutiveFailures,
      )
      .map(({ lastError, lastFailureAt, ...hook }) => ({
        ...hook,
        lastFailureAt: lastFailureAt?.toISOString() ?? null,
        problem: explainDeliveryError(lastError, null),
      })),
  };
}
