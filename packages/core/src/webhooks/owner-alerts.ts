import type { WebhookState } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq, gte, or, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { createThread, insertEmail } from "../email/threads";
import { notifyTopics, userTopic } from "../events/notifier";
import { enqueueJob } from "../jobs/enqueue-job";

const { agents, users, webhooks } = schema;

/**
 * The platform's own account, the sender of what the service tells an owner (decision 0036): a
 * business user with a fixed id and a number in the `000-` block, which no person or agent is
 * ever given. It is created the first time it writes, in the writer's transaction.
 */
export const PLATFORM_USER = {
  id: "usr_switchboard_platform",
  num: "000-000-001",
  displayName: "Switchboard",
} as const;

async function ensurePlatformUser(tx: Tx, now: Date): Promise<void> {
  await tx
    .insert(users)
    .values({ ...PLATFORM_USER, userType: "business", createdAt: now, updatedAt: now })
    .onConflictDoNothing({ target: users.id });
}

/** Failures in a row at which the owner is warned: half of WEBHOOK_DISABLE_AFTER. */
export const warnAfter = (deps: CoreDeps) => Math.ceil(deps.config.WEBHOOK_DISABLE_AFTER / 2);

/** Where the console shows an agent's webhook. */
export const webhookPagePath = (agentId: string) => `/agents/${agentId}/webhook`;

/**
 * One email from the platform to the agent's owner, in their console inbox, inside the
 * transaction that found the webhook failing (`failing`: it reached half of
 * WEBHOOK_DISABLE_AFTER failures in a row) or turned it off (`disabled`). Each is sent once per
 * run of failures: the count only passes the half once before a success resets it, and a
 * webhook is disabled once before it is resumed.
 */
export async function emailOwnerAboutWebhook(
  tx: Tx,
  deps: CoreDeps,
  now: Date,
  agentId: string,
  alert: { kind: "failing" | "disabled"; failures: number; problem: string | null },
): Promise<void> {
  const [agent] = await tx
    .select({ ownerId: agents.ownerId, displayName: users.displayName, num: users.num })
    .from(agents)
    .innerJoin(users, eq(users.id, agents.id))
    .where(eq(agents.id, agentId));
  if (!agent?.ownerId) return;
  const name = agent.displayName ?? agent.num;
  const link = webhookPagePath(agentId);
  const subject =
    alert.kind === "failing"
      ? `Your agent's webhook is failing: ${name}`
      : `Your agent's webhook was turned off: ${name}`;
  const why = alert.problem ? `\n\nThe last attempt: ${alert.problem}` : "";
  const content =
    alert.kind === "failing"
      ? `Your agent ${name}'s webhook has failed ${alert.failures} times in a row. After ${deps.config.WEBHOOK_DISABLE_AFTER} it is turned off and events wait until you resume it.${why}\n\nSee its deliveries: ${link}`
      : `Your agent ${name}'s webhook failed ${alert.failures} times in a row and was turned off. Its events are kept: Resume and retry sends them in order.${why}\n\nResume it here: ${link}`;
  await enqueueJob(tx, "push_alert", {
    agentId,
    alert: alert.kind === "failing" ? "webhook_failing" : "webhook_disabled",
    detail: String(alert.failures),
  });
  await ensurePlatformUser(tx, now);
  const thread = await createThread(tx, now, {
    subject,
    startedById: PLATFORM_USER.id,
    participantIds: [PLATFORM_USER.id, agent.ownerId],
  });
  await insertEmail(tx, now, { threadId: thread.id, senderId: PLATFORM_USER.id, content });
  await notifyTopics(tx, [
    userTopic(agent.ownerId, `thread:${thread.id}`),
    userTopic(agent.ownerId, `webhook:${agentId}`),
  ]);
}

/** An owner's agent whose webhook needs attention, for the banner on the Agents pages. */
export interface WebhookAlert {
  agentId: string;
  displayName: string | null;
  state: WebhookState;
  consecutiveFailures: number;
  /** Failures in a row at which the webhook is turned off. */
  disableAfter: number;
}

/**
 * The owner's agents whose webhook is off, or failing at least half of WEBHOOK_DISABLE_AFTER
 * times in a row (the point the owner was emailed), worst first.
 */
export async function listWebhookAlerts(deps: CoreDeps, ownerId: string): Promise<WebhookAlert[]> {
  const rows = await deps.db
    .select({
      agentId: webhooks.agentId,
      displayName: users.displayName,
      state: webhooks.state,
      consecutiveFailures: webhooks.consecutiveFailures,
    })
    .from(webhooks)
    .innerJoin(agents, eq(agents.id, webhooks.agentId))
    .innerJoin(users, eq(users.id, webhooks.agentId))
    .where(
      and(
        eq(agents.ownerId, ownerId),
        or(eq(webhooks.state, "disabled"), gte(webhooks.consecutiveFailures, warnAfter(deps))),
      ),
    )
    .orderBy(sql`${webhooks.state} = 'active'`, sql`${webhooks.consecutiveFailures} desc`);
  return rows.map((row) => ({ ...row, disableAfter: deps.config.WEBHOOK_DISABLE_AFTER }));
}
