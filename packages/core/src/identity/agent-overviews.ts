import { schema } from "@switchboard/db";
import { eq, inArray, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { dailyMessageCounts, lastUtcDays } from "../limits/agent-history";
import { listOwnedAgents, type OwnedAgent } from "./agents";

const { agentContacts, conversations } = schema;

/** An owned agent as the agents list shows it: who has it, when it last talked, its week. */
export interface AgentOverview extends OwnedAgent {
  /** People who have it in their contacts now. */
  contacts: number;
  /** The newest message in any of its chats, either way. */
  lastActivityAt: string | null;
  /** Messages sent and received on each of the last 7 UTC days, oldest first. */
  last7Days: { day: string; messages: number }[];
}

/** A person's agents, oldest first, each with its contacts, last activity and last 7 days. */
export async function listAgentOverviews(
  deps: CoreDeps,
  ownerId: string,
): Promise<AgentOverview[]> {
  const agents = await listOwnedAgents(deps, ownerId);
  const ids = agents.map((agent) => agent.id);
  if (ids.length === 0) return [];
  const standing = await deps.db
    .select({
      agentId: agentContacts.agentId,
      contacts: sql<number>`(count(*) filter (where ${agentContacts.addedAt} is not null))::int`,
      lastActivityAt: sql<string | null>`max(${conversations.lastMessageAt})`,
    })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .where(inArray(agentContacts.agentId, ids))
    .groupBy(agentContacts.agentId);
  const days = lastUtcDays(deps.clock.now(), 7);
  const counts = await dailyMessageCounts(deps, ids, days);
  return agents.map((agent) => {
    const row = standing.find((s) => s.agentId === agent.id);
    const perDay = counts.get(agent.id);
    return {
      ...agent,
      contacts: row?.contacts ?? 0,
      lastActivityAt: row?.lastActivityAt ? new Date(row.lastActivityAt).toISOString() : null,
      last7Days: days.map((day) => {
        const count = perDay?.get(day);
        return { day, messages: (count?.sent ?? 0) + (count?.received ?? 0) };
      }),
    };
  });
}
