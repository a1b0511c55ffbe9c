import type { AgentEvent } from "@switchboard/contract";
import type { CoreDeps } from "@switchboard/core";
import { schema } from "@switchboard/db";
import { inArray } from "drizzle-orm";
import type { Ledger } from "./ledger";
import type { Consumer, SimAgent, World } from "./load";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Every event of the agent, read back from seq 0 over `GET /updates` (the committed set). */
export async function committedEvents(world: World, agent: SimAgent): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  let cursor = 0;
  for (;;) {
    const answer = await world.call(
      agent,
      "GET",
      `/updates?afterSeq=${cursor}&limit=100`,
      undefined,
      "GET /updates (check)",
    );
    if (answer.status !== 200) throw new Error(`reading the committed events: ${answer.status}`);
    const page = answer.body as { events: AgentEvent[]; nextSeq: number };
    events.push(...page.events);
    if (page.events.length < 100) return events;
    cursor = page.nextSeq;
  }
}

/** Every message id in a conversation's history, paging back with `before`. */
async function historyIds(world: World, agent: SimAgent, conversationId: string) {
  const ids: string[] = [];
  let before = "";
  for (;;) {
    const answer = await world.call(
      agent,
      "GET",
      `/conversations/${conversationId}/messages?limit=100${before && `&before=${before}`}`,
      undefined,
      "GET history (check)",
    );
    if (answer.status !== 200) throw new Error(`reading history: ${answer.status}`);
    const page = answer.body as { messages: { id: string }[]; hasMore: boolean };
    ids.push(...page.messages.map((m) => m.id));
    if (!page.hasMore || page.messages.length === 0) return ids;
    before = (page.messages[0] as { id: string }).id;
  }
}

export async function runChecks(
  world: World,
  deps: CoreDeps,
  ledger: Ledger,
  committed: Map<string, AgentEvent[]>,
): Promise<Check[]> {
  const checks: Check[] = [];
  const check = (name: string, failures: string[], detail: string) =>
    checks.push({
      name,
      ok: failures.length === 0,
      detail: failures.length ? failures.slice(0, 5).join("; ") : detail,
    });

  // 1. Every answered send is in its conversation's history exactly once.
  const sendFailures: string[] = [];
  for (const agent of world.agents)
    for (const person of agent.people) {
      const history = await historyIds(world, agent, person.conversationId);
      const times = new Map<string, number>();
      for (const id of history) times.set(id, (times.get(id) ?? 0) + 1);
      for (const [id, n] of times) if (n > 1) sendFailures.push(`${id} is in history ${n} times`);
      for (const sent of world.sent.filter((s) => s.conversationId === person.conversationId))
        if (!times.has(sent.messageId))
          sendFailures.push(`${sent.via} send ${sent.messageId} answered but not in history`);
    }
  check(
    "every send answered 201 is in its history exactly once",
    sendFailures,
    `${world.sent.length} sends (${countBy(world.sent.map((s) => s.via))})`,
  );

  // 2. Webhooks: deduplicated by id the arrivals are the committed set, first arrivals in seq order.
  const hookFailures: string[] = [];
  let deliveries = 0;
  let duplicates = 0;
  for (const agent of world.agents) {
    if (!agent.receiver) continue;
    const expected = committed.get(agent.id) ?? [];
    const arrivals = agent.receiver.arrivals;
    deliveries += arrivals.length;
    const first = firstById(arrivals);
    duplicates += arrivals.length - first.length;
    const missing = expected.filter((e) => !first.some((a) => a.id === e.id));
    const extra = first.filter((a) => !expected.some((e) => e.id === a.id));
    if (missing.length)
      hookFailures.push(`${agent.receiver.kind} receiver missed ${missing.length} events`);
    if (extra.length)
      hookFailures.push(`${agent.receiver.kind} receiver got ${extra.length} uncommitted ids`);
    if (!ascending(first.map((a) => a.seq)))
      hookFailures.push(`${agent.receiver.kind} receiver: first arrivals out of seq order`);
    const unsigned = arrivals.filter((a) => !a.signed).length;
    if (unsigned) hookFailures.push(`${agent.receiver.kind} receiver: ${unsigned} bad signatures`);
  }
  check(
    "every committed event reached its webhook, in seq order after dedup, signed",
    hookFailures,
    `${deliveries} deliveries, ${duplicates} repeated`,
  );

  // 3. Streams (resumed from their last seq) and long-polls saw every event once, no gap.
  for (const [label, pickConsumer] of [
    ["stream", (agent: SimAgent) => agent.stream],
    ["long-poll", (agent: SimAgent) => agent.poll],
  ] as const) {
    const failures: string[] = [];
    for (const agent of world.agents) {
      const problem = gapless(pickConsumer(agent), committed.get(agent.id) ?? []);
      if (problem) failures.push(`agent ${agent.index}: ${problem}`);
    }
    check(
      `every ${label} saw every event exactly once, in order, no gap`,
      failures,
      `${world.agents.reduce((sum, a) => sum + pickConsumer(a).events.length, 0)} events`,
    );
  }

  // 4. Every approved proposal ran its skill exactly once; a rejected one never.
  const proposalFailures: string[] = [];
  const titles = world.proposals.map((p) => p.title);
  const tasks = titles.length
    ? await deps.db
        .select({ id: schema.tasks.id, title: schema.tasks.title })
        .from(schema.tasks)
        .where(inArray(schema.tasks.title, titles))
    : [];
  let approved = 0;
  for (const proposal of world.proposals) {
    const agent = world.agents.find((a) => a.id === proposal.agentId) as SimAgent;
    const answer = await world.call(
      agent,
      "GET",
      `/actions/${proposal.actionId}`,
      undefined,
      "GET /actions/{id} (check)",
    );
    const action = (answer.body as { action: { state: string; execution: unknown } }).action;
    const made = tasks.filter((t) => t.title === proposal.title);
    if (action.state === "approved") {
      approved++;
      const execution = action.execution as { status: string; recordId?: string } | null;
      if (made.length !== 1 || execution?.recordId !== made[0]?.id)
        proposalFailures.push(`${proposal.actionId}: approved, ${made.length} tasks`);
    } else if (made.length !== 0)
      proposalFailures.push(`${proposal.actionId}: ${action.state}, ${made.length} tasks`);
    if (proposal.decided && action.state !== proposal.decided)
      proposalFailures.push(`${proposal.actionId}: decided ${proposal.decided}, ${action.state}`);
    if (!proposal.decided) proposalFailures.push(`${proposal.actionId}: the decision never landed`);
  }
  check(
    "every approved proposal ran its skill exactly once",
    proposalFailures,
    `${world.proposals.length} proposals, ${approved} approved`,
  );

  // 5. Clients saw only 503s and lost connections, and only during faults.
  check(
    "the only client errors were 503/connection during faults (no 500)",
    ledger.problems.map((p) => `${p.kind} ${p.outcome} at ${p.atMs} ms ${p.detail}`),
    `${ledger.tolerated.length} tolerated (${countBy(ledger.tolerated.map((p) => String(p.outcome)))})`,
  );
  return checks;
}

/** The consumer's events, deduplicated, are the committed ones, in seq order, none twice. */
function gapless(consumer: Consumer, expected: AgentEvent[]): string | null {
  const seqs = consumer.events.map((e) => e.seq);
  if (new Set(seqs).size !== seqs.length) return `${seqs.length - new Set(seqs).size} events twice`;
  if (!ascending(seqs)) return "out of seq order";
  const seen = new Set(consumer.events.map((e) => e.id));
  const missing = expected.filter((e) => !seen.has(e.id));
  if (missing.length)
    return `${missing.length} of ${expected.length} missing (first seq ${missing[0]?.seq})`;
  if (seen.size !== expected.length) return `${seen.size - expected.length} uncommitted events`;
  return null;
}

function firstById<T extends { id: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.id) && seen.add(item.id));
}

function ascending(list: number[]): boolean {
  return list.every((value, i) => i === 0 || value > (list[i - 1] as number));
}

function countBy(values: string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, n]) => `${value}: ${n}`).join(", ");
}
