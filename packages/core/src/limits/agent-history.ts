import { schema } from "@switchboard/db";
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { utcDay } from "./charge-send";

const { agentDailyRefusals, agentDailyUsage, events, webhookDeliveries } = schema;

/** One UTC day of an agent's activity, as the owner's charts draw it. */
export interface AgentDay {
  /** YYYY-MM-DD (UTC, as the daily ceilings count). */
  day: string;
  /** Messages the agent sent (every charged send: messages, proposals, streamed replies…). */
  sent: number;
  /** Messages people sent it. */
  received: number;
  proposals: number;
  /** Refused sends by code (`not_a_contact`, `scope_not_granted`, …). */
  refusals: Record<string, number>;
  /** Events of that day that reached the webhook, and those still failing or given up on. */
  webhook: { delivered: number; failed: number; avgLatencyMs: number | null };
}

/** The last `count` UTC days ending today, oldest first. */
export function lastUtcDays(now: Date, count: number): string[] {
  const today = Date.parse(`${utcDay(now)}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) =>
    utcDay(new Date(today - (count - 1 - i) * 86_400_000)),
  );
}

const dayOf = (column: unknown) => sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`;

/**
 * Daily message counts (sent and received) of several agents over the given UTC days: what the
 * agents list draws as sparklines and the agent page as its messages chart.
 */
export async function dailyMessageCounts(
  deps: CoreDeps,
  agentIds: readonly string[],
  days: readonly string[],
): Promise<Map<string, Map<string, { sent: number; received: number }>>> {
  const counts = new Map<string, Map<string, { sent: number; received: number }>>();
  const first = days[0];
  if (agentIds.length === 0 || !first) return counts;
  const slot = (agentId: string, day: string) => {
    const perDay = counts.get(agentId) ?? new Map<string, { sent: number; received: number }>();
    counts.set(agentId, perDay);
    const entry = perDay.get(day) ?? { sent: 0, received: 0 };
    perDay.set(day, entry);
    return entry;
  };
  const sent = await deps.db
    .select({
      agentId: agentDailyUsage.agentId,
      day: agentDailyUsage.day,
      n: agentDailyUsage.messages,
    })
    .from(agentDailyUsage)
    .where(and(inArray(agentDailyUsage.agentId, [...agentIds]), gte(agentDailyUsage.day, first)));
  for (const row of sent) slot(row.agentId, row.day).sent = row.n;
  const day = dayOf(events.ts);
  const received = await deps.db
    .select({ agentId: events.agentId, day, n: sql<number>`count(*)::int` })
    .from(events)
    .where(
      and(
        inArray(events.agentId, [...agentIds]),
        eq(events.type, "message.received"),
        gte(events.ts, new Date(`${first}T00:00:00Z`)),
      ),
    )
    .groupBy(events.agentId, day);
  for (const row of received) slot(row.agentId, row.day).received = row.n;
  return counts;
}

/**
 * An agent's activity per UTC day over the last `count` days (oldest first, today last):
 * messages sent and received, proposals, refused sends by code, and how its webhook fared with
 * the events of each day (delivered, failing or dead, average latency of the latest attempts).
 */
export async function getAgentHistory(
  deps: CoreDeps,
  agentId: string,
  count = 14,
): Promise<{ days: AgentDay[]; refusalCodes: string[] }> {
  const days = lastUtcDays(deps.clock.now(), count);
  const first = days[0] as string;
  const messages = (await dailyMessageCounts(deps, [agentId], days)).get(agentId);
  const usage = await deps.db
    .select()
    .from(agentDailyUsage)
    .where(and(eq(agentDailyUsage.agentId, agentId), gte(agentDailyUsage.day, first)));
  const refusals = await deps.db
    .select()
    .from(agentDailyRefusals)
    .where(and(eq(agentDailyRefusals.agentId, agentId), gte(agentDailyRefusals.day, first)));
  const deliveryDay = dayOf(webhookDeliveries.createdAt);
  const deliveries = await deps.db
    .select({
      day: deliveryDay,
      delivered: sql<number>`(count(*) filter (where ${webhookDeliveries.status} = 'succeeded'))::int`,
      failed: sql<number>`(count(*) filter (where ${webhookDeliveries.status} = 'dead' or (${webhookDeliveries.status} <> 'succeeded' and ${webhookDeliveries.attempts} > 0)))::int`,
      avgLatencyMs: sql<number | null>`round(avg(${webhookDeliveries.latencyMs}))::int`,
    })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.agentId, agentId),
        gte(webhookDeliveries.createdAt, new Date(`${first}T00:00:00Z`)),
      ),
    )
    .groupBy(deliveryDay);

  const codes = [...new Set(refusals.map((r) => r.code))].sort();
  return {
    refusalCodes: codes,
    days: days.map((day) => {
      const webhook = deliveries.find((d) => d.day === day);
      return {
        day,
        sent: messages?.get(day)?.sent ?? 0,
        received: messages?.get(day)?.received ?? 0,
        proposals: usage.find((u) => u.day === day)?.proposals ?? 0,
        refusals: Object.fromEntries(
          refusals.filter((r) => r.day === day).map((r) => [r.code, r.count]),
        ),
        webhook: {
          delivered: webhook?.delivered ?? 0,
          failed: webhook?.failed ?? 0,
          avgLatencyMs: webhook?.avgLatencyMs ?? null,
        },
      };
    }),
  };
}
