import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { eventExamples } from "@switchboard/contract";
import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CoreDeps } from "../deps";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { dropExpiredEvents } from "../maintenance/event-partitions";
import { createTestDeps } from "../testing";
import { drainWebhook } from "./deliver-webhook";
import { dueDeliveries } from "./due-deliveries";
import { putWebhook } from "./webhook-config";

/**
 * A drain's read stays small however long an agent's delivery history and the event log grow
 * (decision 0051): it walks only the agent's pending deliveries, and finds each one's event in
 * the one partition of the log that holds it, also for an old event being retried.
 */

let t: Awaited<ReturnType<typeof createTestDeps>>;
let traced: ReturnType<typeof createDb>;
let statements: { query: string; parameters: unknown[] }[] = [];

beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
  traced = createDb(t.config.DATABASE_URL as string, {
    max: 1,
    debug: (_connection, query, parameters) => statements.push({ query, parameters }),
  });
});
afterAll(async () => {
  await traced?.close();
  await t?.close();
});

/** Four weekly partitions of the log, far from any other test's events. */
const WEEKS = ["2100-01-01", "2100-01-08", "2100-01-15", "2100-01-22", "2100-01-29"];
const HISTORY = 20_000;

/** A parameter as an SQL literal, for `execute` of a prepared statement (test values only). */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `'{${value.join(",")}}'`;
  if (typeof value === "number") return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}

interface PlanNode {
  "Relation Name"?: string;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

let explainedCount = 0;

/**
 * Every node of a captured statement's plan as prepared statements run it (a generic plan,
 * decision 0047), explained with ANALYZE in a transaction that is rolled back.
 */
async function generic(statement: { query: string; parameters: unknown[] }) {
  // PREPARE outlives a rollback: a new name each time.
  const name = `planned_${++explainedCount}`;
  const explained = await t.deps.sql
    .begin(async (session) => {
      await session.unsafe(`prepare ${name} as ${statement.query}`);
      await session.unsafe("set local plan_cache_mode = force_generic_plan");
      const [plan] = await session.unsafe(
        `explain (analyze, format json) execute ${name}(${statement.parameters.map(literal).join(", ")})`,
      );
      throw Object.assign(new Error("rolled back"), { plan });
    })
    .catch((error: { plan?: Record<string, unknown> }) => error.plan);
  const [root] = (explained?.["QUERY PLAN"] ?? []) as { Plan: PlanNode }[];
  return nodes(root?.Plan ?? {});
}

/** The log's partitions a plan reads (those it prunes are never run). */
const partitionsRead = (plan: PlanNode[]) =>
  plan
    .filter((node) => node["Relation Name"]?.startsWith("events_"))
    .filter((node) => (node["Actual Loops"] ?? 0) > 0)
    .map((node) => node["Relation Name"]);

it("a drain reads only pending deliveries and each event's own partition, an old one's too", async () => {
  for (const [i, from] of WEEKS.slice(0, -1).entries())
    await t.deps.sql.unsafe(
      `create table events_plan_${i} partition of events for values from ('${from}') to ('${WEEKS[i + 1]}')`,
    );
  const arrived: string[] = [];
  const receiver = createServer((req, res) => {
    arrived.push(req.headers["x-svc-event-id"] as string);
    req.resume();
    req.on("end", () => res.end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, { ownerId: owner.id, displayName: "Long-lived" });
    const port = (receiver.address() as AddressInfo).port;
    await putWebhook(t.deps, agent.id, `http://127.0.0.1:${port}/in`);
    // A long history spread over the four weeks, every delivery of it made; the three waiting
    // ones are the oldest events (retries of the first week's), the rest of the log is newer.
    await t.deps.sql`
      insert into events (id, agent_id, type, ts, payload)
      select 'evt_plan' || g, ${agent.id}, 'contact.added',
             timestamptz '2100-01-01' + g * interval '100 seconds',
             ${JSON.stringify(eventExamples["contact.added"])}::jsonb
      from generate_series(1, ${HISTORY}) g`;
    await t.deps.sql`
      insert into webhook_deliveries
        (agent_id, event_id, event_seq, event_type, status, next_attempt_at, created_at, updated_at)
      select agent_id, id, seq, type,
             (case when seq <= (select min(seq) + 2 from events where id like 'evt_plan%')
                   then 'pending' else 'succeeded' end)::delivery_status,
             ts, ts, ts
      from events where id like 'evt_plan%'`;
    await t.deps.sql`analyze`;
    const waiting = ["evt_plan1", "evt_plan2", "evt_plan3"];
    t.clock.set("2100-02-01T00:00:00Z");

    const deps: CoreDeps = { ...t.deps, db: traced.db, sql: traced.sql };
    statements = [];
    expect(await drainWebhook(deps, agent.id)).toEqual({ attempts: 3, more: false });
    expect(arrived).toEqual(waiting);

    // The drain's read, explained with the plan prepared statements come to use (decision
    // 0047), while the three are waiting again.
    const read = statements.find(({ query }) =>
      /^select .* from "webhook_deliveries"/s.test(query),
    );
    if (!read) throw new Error("the drain's read was not seen");
    await t.deps.sql`
      update webhook_deliveries set status = 'pending', next_attempt_at = created_at
      where event_id in ${t.deps.sql(waiting)}`;
    const plan = await generic(read);
    expect(partitionsRead(plan)).toEqual(["events_plan_0"]);
    const walked = plan
      .filter((node) => node["Relation Name"] === "webhook_deliveries")
      .reduce((sum, node) => sum + (node["Rows Removed by Filter"] ?? 0), 0);
    expect(walked).toBeLessThan(100);

    // The read of several agents woken together, planned the same way: each agent's pending
    // deliveries through their index, each event in its own partition.
    const quiet = await createAgent(t.deps, { ownerId: owner.id, displayName: "Quiet" });
    statements = [];
    const [due] = await Promise.all([
      dueDeliveries(deps, agent.id, []),
      dueDeliveries(deps, quiet.id, []),
    ]);
    expect(due?.map((row) => row.delivery.eventId)).toEqual(waiting);
    const grouped = statements.find(({ query }) => /unnest/.test(query));
    if (!grouped) throw new Error("the grouped read was not seen");
    const groupedPlan = await generic(grouped);
    expect(partitionsRead(groupedPlan)).toEqual(["events_plan_0"]);
    expect(
      groupedPlan
        .filter((node) => node["Relation Name"] === "webhook_deliveries")
        .reduce((sum, node) => sum + (node["Rows Removed by Filter"] ?? 0), 0),
    ).toBeLessThan(100);

    // Retention at 30 days drops the first week's partition and sweeps its deliveries (found by
    // event id and time), and only those.
    const [firstWeek] = await t.deps.sql`
      select count(*)::int as n from webhook_deliveries where created_at < '2100-01-08'`;
    const dropped = await dropExpiredEvents(deps, new Date("2100-02-07T00:00:00Z"), 30);
    expect(dropped.partitions).toContain("events_plan_0");
    expect(dropped.deliveries).toBe(firstWeek?.n);
    expect(await t.deps.sql`select count(*)::int as n from webhook_deliveries`).toEqual([
      { n: HISTORY - (firstWeek?.n ?? 0) },
    ]);
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
