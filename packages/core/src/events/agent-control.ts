import { type Executor, schema } from "@switchboard/db";
import { and, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import { notifyTopics, type PersonChange, type Topic, userTopic } from "./notifier";

const { agentContacts, agents } = schema;

/**
 * Owner control takes effect at once: whatever changes an agent's standing (pause, its owner's
 * suspension, a token revoked, a person blocking or removing it) notifies `control:<agentId>` in
 * the same transaction. The agent's open streams and parked long-polls, on any process, re-check
 * their standing when it commits instead of at the next ping or heartbeat.
 */
export function controlTopic(agentId: string): Topic {
  return `control:${agentId}`;
}

/** Queues the control wake-up of each agent inside the caller's transaction. */
export async function notifyAgentControl(tx: Executor, agentIds: Iterable<string>): Promise<void> {
  await notifyTopics(tx, [...agentIds].map(controlTopic));
}

/**
 * The open consoles of the agents' owners, told what changed (`webhook:<id>`, `activity:<id>`…):
 * for changes an owner watches that happen without them (deliveries, usage, a pause).
 */
export async function agentOwnerTopics(
  db: Executor,
  agentIds: Iterable<string>,
  change: (agentId: string) => PersonChange,
): Promise<Topic[]> {
  const ids = [...new Set(agentIds)];
  if (ids.length === 0) return [];
  const rows = await db
    .select({ agentId: agents.id, ownerId: agents.ownerId })
    .from(agents)
    .where(and(inArray(agents.id, ids), isNotNull(agents.ownerId)));
  return rows.map((row) => userTopic(row.ownerId as string, change(row.agentId)));
}

/**
 * Everyone who sees an agent's profile and standing: its owner and the people who added it (and
 * did not block it), told `agent:<id>`. For a pause, a resume or a new profile, which change the
 * chat header and the owner's pages.
 */
export async function agentViewerTopics(db: Executor, agentId: string): Promise<Topic[]> {
  const change: PersonChange = `agent:${agentId}`;
  const owners = await agentOwnerTopics(db, [agentId], () => change);
  return [...owners, ...(await contactTopics(db, agentId, change))];
}

/** The open apps of the people who added an agent (and did not block it), told `change`. */
export async function contactTopics(
  db: Executor,
  agentId: string,
  change: PersonChange,
): Promise<Topic[]> {
  const rows = await db
    .select({ userId: agentContacts.userId })
    .from(agentContacts)
    .where(
      and(
        eq(agentContacts.agentId, agentId),
        isNotNull(agentContacts.addedAt),
        isNull(agentContacts.blockedAt),
      ),
    );
  return rows.map((row) => userTopic(row.userId, change));
}
