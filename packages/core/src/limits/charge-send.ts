import type { AgentUsage, DailyCounts } from "@switchboard/contract";
import { clientOf, type Executor, type Sql, schema, type Tx } from "@switchboard/db";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { agentOwnerTopics, agentViewerTopics, notifyAgentControl } from "../events/agent-control";
import { notifyTopics, type Topic, userTopic } from "../events/notifier";
import { enqueueJob } from "../jobs/enqueue-job";
import { rateLimitedError, rateState, rateWindow } from "./rate-limit";

const { agentDailyRefusals, agentDailyUsage, agents, rateCounters } = schema;

export type Ceiling = "messages" | "proposals" | "refused";
type Usage = DailyCounts;

/** The UTC day a time falls in, as the usage table keys it. */
export const utcDay = (now: Date) => now.toISOString().slice(0, 10);
const startOfUtcDay = (now: Date) => new Date(`${utcDay(now)}T00:00:00Z`);

/**
 * Charges one send to the agent's limits, inside the send's own transaction: if the send fails
 * later, the charge rolls back with it. Messages, proposals (their card is a message), emails,
 * posts and streamed replies all count as messages; a send to a person also counts against the
 * per-recipient limit. Reaching a daily ceiling pauses the agent (in the same transaction), unless
 * its owner resumed it earlier the same UTC day. Answers the wake-up of the owner's open console
 * (its usage changed), found by the same statement, for the caller to issue once the send
 * commits (`wakeAfterCommit`, decision 0077): a refused charge wakes nobody.
 */
export async function chargeSend(tx: Tx, deps: CoreDeps, send: ChargedSend): Promise<Topic[]> {
  const now = deps.clock.now();
  const window = rateWindow(now, 60);
  const pg = clientOf(tx);
  const parts = chargeParts(pg, deps, send, now);
  // Every count of the send in one statement (a send's hot path counts round trips); the
  // checks follow, and a refusal rolls all of them back with the send's transaction.
  const [row] = await pg<
    {
      agent_count: number;
      recipient_count: number | null;
      messages: number;
      proposals: number;
      refused: number;
      owner_id: string | null;
    }[]
  >`with ${parts.ctes}
    select (select count from agent_hit) as agent_count,
           (select count from recipient_hit) as recipient_count,
           usage.messages, usage.proposals, usage.refused, ${parts.owner} as owner_id
    from usage`;
  if (!row) throw new Error("charging a send returned nothing");
  const perAgent = rateState(row.agent_count, deps.config.LIMIT_MESSAGES_PER_MIN, window);
  if (!perAgent.allowed) throw rateLimitedError(perAgent, "messages");
  if (row.recipient_count !== null) {
    const perRecipient = rateState(
      row.recipient_count,
      deps.config.LIMIT_PER_RECIPIENT_PER_MIN,
      window,
    );
    if (!perRecipient.allowed)
      throw rateLimitedError(perRecipient, "messages to one person", "conversation_rate_limited");
  }
  await pauseAtCeiling(tx, deps, send.agentId, row, now);
  return ownerWake(send.agentId, row.owner_id);
}

interface ChargedSend {
  agentId: string;
  recipientId: string | null;
  proposal?: boolean;
}

/** The wake-up of the owner's open console when a send of its agent was charged. */
export const ownerWake = (agentId: string, ownerId: string | null): Topic[] =>
  ownerId ? [userTopic(ownerId, `activity:${agentId}`)] : [];

/**
 * The charge as the parts of a statement, built at once (no awaits): the CTEs `agent_hit` and
 * `recipient_hit` (this minute's counts, the second only for a send to a person) and `usage`
 * (today's), the agent's owner, and `withinLimits`: true when the charge needs nothing more, no
 * per-minute count over its limit (`rateState`'s comparison) and every daily count strictly
 * under its ceiling (so `pauseAtCeiling` has nothing to do). `chargeSend` decides from the
 * counts; a repeat send's one statement guards on `withinLimits` and, when it does not hold,
 * is made again in the classic order, which refuses, counts or pauses (decision 0083).
 * Each count reads the one before it, so whichever way a statement reads them, its row locks
 * are taken in one order (the agent's minute, the person's, the day): a send as one statement
 * and one in the classic order, which read them differently, deadlocked at once otherwise.
 * postgres.js's own template (decision 0075): one fixed text, nothing built per call.
 */
export function chargeParts(pg: Sql, deps: CoreDeps, send: ChargedSend, now: Date) {
  const start = rateWindow(now, 60).start.toISOString();
  const recipientKey = send.recipientId ? `recipient:${send.agentId}:${send.recipientId}` : null;
  const proposals = send.proposal ? 1 : 0;
  const limits = deps.config;
  return {
    ctes: pg`agent_hit as (
      insert into rate_counters (key, window_start, count)
      values (${`messages:${send.agentId}`}, ${start}::timestamptz, 1)
      on conflict (key, window_start) do update set count = rate_counters.count + 1
      returning count
    ), recipient_hit as (
      insert into rate_counters (key, window_start, count)
      select ${recipientKey}::text, ${start}::timestamptz, 1 from agent_hit
      where ${recipientKey}::text is not null
      on conflict (key, window_start) do update set count = rate_counters.count + 1
      returning count
    ), usage as (
      insert into agent_daily_usage (agent_id, day, messages, proposals, refused)
      select ${send.agentId}, ${utcDay(now)}, 1, ${proposals}, 0
      where (select count(*) from recipient_hit) >= 0
      on conflict (agent_id, day) do update
        set messages = agent_daily_usage.messages + 1,
            proposals = agent_daily_usage.proposals + ${proposals}
      returning messages, proposals, refused
    )`,
    owner: pg`(select owner_id from agents where id = ${send.agentId})`,
    withinLimits: pg`(select count from agent_hit) <= ${limits.LIMIT_MESSAGES_PER_MIN}::int
      and coalesce((select count from recipient_hit) <= ${limits.LIMIT_PER_RECIPIENT_PER_MIN}::int, true)
      and (select messages < ${limits.LIMIT_DAILY_MESSAGES}::int
        and proposals < ${limits.LIMIT_DAILY_PROPOSALS}::int
        and refused < ${limits.LIMIT_DAILY_REFUSED}::int from usage)`,
  };
}

/**
 * Counts a refused send (`not_a_contact`, `scope_not_granted`, `reply_window_closed`, `blocked`),
 * and per code for the owner's dashboard. Runs in its own transaction because the refused call's
 * work is rolled back.
 */
export async function recordRefusedSend(
  deps: CoreDeps,
  agentId: string,
  code?: string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const usage = await addUsage(tx, agentId, now, { refused: 1 });
    if (code)
      await tx
        .insert(agentDailyRefusals)
        .values({ agentId, day: utcDay(now), code, count: 1 })
        .onConflictDoUpdate({
          target: [agentDailyRefusals.agentId, agentDailyRefusals.day, agentDailyRefusals.code],
          set: { count: sql`${agentDailyRefusals.count} + 1` },
        });
    await pauseAtCeiling(tx, deps, agentId, usage, now);
    await notifyTopics(tx, await agentOwnerTopics(tx, [agentId], (id) => `activity:${id}`));
  });
}

async function addUsage(
  tx: Executor,
  agentId: string,
  now: Date,
  add: Partial<Usage>,
): Promise<Usage> {
  const [row] = await tx
    .insert(agentDailyUsage)
    .values({
      agentId,
      day: utcDay(now),
      messages: add.messages ?? 0,
      proposals: add.proposals ?? 0,
      refused: add.refused ?? 0,
    })
    .onConflictDoUpdate({
      target: [agentDailyUsage.agentId, agentDailyUsage.day],
      set: {
        messages: sql`${agentDailyUsage.messages} + ${add.messages ?? 0}`,
        proposals: sql`${agentDailyUsage.proposals} + ${add.proposals ?? 0}`,
        refused: sql`${agentDailyUsage.refused} + ${add.refused ?? 0}`,
      },
    })
    .returning();
  return {
    messages: row?.messages ?? 0,
    proposals: row?.proposals ?? 0,
    refused: row?.refused ?? 0,
  };
}

function ceilings(deps: CoreDeps): Usage {
  return {
    messages: deps.config.LIMIT_DAILY_MESSAGES,
    proposals: deps.config.LIMIT_DAILY_PROPOSALS,
    refused: deps.config.LIMIT_DAILY_REFUSED,
  };
}

async function pauseAtCeiling(tx: Tx, deps: CoreDeps, agentId: string, usage: Usage, now: Date) {
  const limits = ceilings(deps);
  const reached = (Object.keys(limits) as Ceiling[]).find((name) => usage[name] >= limits[name]);
  if (!reached) return;
  const paused = await tx
    .update(agents)
    .set({ pausedAt: now, pauseReason: `ceiling:${reached}`, updatedAt: now })
    .where(
      and(
        eq(agents.id, agentId),
        isNull(agents.pausedAt),
        or(isNull(agents.resumedAt), lt(agents.resumedAt, startOfUtcDay(now))),
      ),
    )
    .returning({ id: agents.id });
  if (paused.length === 0) return;
  await enqueueJob(tx, "push_alert", { agentId, alert: "paused", detail: reached });
  await notifyAgentControl(tx, [agentId]);
  await notifyTopics(tx, await agentViewerTopics(tx, agentId)); // the chat headers say "paused"
}

/** What the owner's console shows: today's usage against each ceiling and this minute's rates. */
export async function getAgentUsage(deps: CoreDeps, agentId: string): Promise<AgentUsage> {
  const now = deps.clock.now();
  const window = rateWindow(now, 60);
  const [today] = await deps.db
    .select()
    .from(agentDailyUsage)
    .where(and(eq(agentDailyUsage.agentId, agentId), eq(agentDailyUsage.day, utcDay(now))));
  const counters = await deps.db
    .select({ key: rateCounters.key, count: rateCounters.count })
    .from(rateCounters)
    .where(
      and(
        eq(rateCounters.windowStart, window.start),
        or(
          eq(rateCounters.key, `requests:${agentId}`),
          eq(rateCounters.key, `messages:${agentId}`),
        ),
      ),
    );
  const count = (key: string) => counters.find((c) => c.key === key)?.count ?? 0;
  return {
    day: utcDay(now),
    usage: {
      messages: today?.messages ?? 0,
      proposals: today?.proposals ?? 0,
      refused: today?.refused ?? 0,
    },
    ceilings: ceilings(deps),
    perMinute: {
      requests: {
        count: count(`requests:${agentId}`),
        limit: deps.config.LIMIT_REQUESTS_PER_MIN,
        resetSeconds: window.resetSeconds,
      },
      messages: {
        count: count(`messages:${agentId}`),
        limit: deps.config.LIMIT_MESSAGES_PER_MIN,
        resetSeconds: window.resetSeconds,
      },
    },
  };
}
