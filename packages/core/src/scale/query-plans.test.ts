import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { latestSeq, readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { listAgentConversations } from "../messaging/list-agent-conversations";
import { listAgentMessages, listAgentMessagesJson } from "../messaging/list-agent-messages";
import { sendPersonMessage } from "../messaging/send-person-message";
import { createTestDeps } from "../testing";

/**
 * The hot reads stay index lookups however large the log grows: with an event log and a
 * conversation far larger than a page, every statement GET /updates (also with nothing new, for
 * an agent whose last event is older than the whole log), GET /updates/cursor, history and
 * GET /conversations send reads only about what it answers. Latency at 10 M rows is a
 * benchmark's job; this is the plan those numbers rest on.
 */

const SEEDED_EVENTS = 300_000;
const SEEDED_MESSAGES = 200_000;
/** Tables at least this large must never be read whole by a hot path. */
const LARGE_TABLE_ROWS = 50_000;
/** More rows than a hot read may look at and throw away (a few pages' worth). */
const MAX_ROWS_FILTERED = 1_000;

let t: Awaited<ReturnType<typeof createTestDeps>>;
let traced: ReturnType<typeof createDb>;
let statements: { query: string; parameters: unknown[] }[] = [];
let deps: CoreDeps;

beforeAll(async () => {
  t = await createTestDeps();
  traced = createDb(t.config.DATABASE_URL as string, {
    max: 1,
    debug: (_connection, query, parameters) => statements.push({ query, parameters }),
  });
  deps = { ...t.deps, db: traced.db, sql: traced.sql };
}, 120_000);
afterAll(async () => {
  await traced?.close();
  await t?.close();
});

/**
 * Every statement `run` sends, with what its plan reads of large tables more than it needs: a
 * sequential scan, or an index scan that filters away more than a page's worth of rows (an index
 * on the wrong columns). Reads are explained with ANALYZE, so the counts are real, with the
 * values (a custom plan) and without (a generic plan); writes are only planned.
 */
function wasteIn(explained: Record<string, unknown>[], large: Set<string>): string[] {
  const waste: string[] = [];
  const walk = (plan: Record<string, unknown>) => {
    const table = String(plan["Relation Name"]);
    if (large.has(table)) {
      if (plan["Node Type"] === "Seq Scan") waste.push(`seq scan of ${table}`);
      const removed = Number(plan["Rows Removed by Filter"] ?? 0);
      if (removed > MAX_ROWS_FILTERED) waste.push(`${removed} rows of ${table} filtered away`);
    }
    for (const child of (plan.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  const plans = explained[0]?.["QUERY PLAN"] as { Plan: Record<string, unknown> }[] | undefined;
  walk(plans?.[0]?.Plan ?? {});
  return waste;
}

/** A parameter as an SQL literal, for `execute` of a prepared statement (test values only). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  throw new Error(`no literal for a ${typeof value} parameter`);
}

async function wastefulReadsOf(run: () => Promise<unknown>) {
  statements = [];
  await run();
  // A partition (of the event log, decision 0047) is a table of its own in a plan; it counts
  // as large by its own size and is named here by its partitioned table.
  const tables = await t.deps.sql<{ relname: string; logical: string }[]>`
    select c.relname, coalesce(p.relname, c.relname) as logical
    from pg_class c
    left join pg_inherits i on i.inhrelid = c.oid
    left join pg_class p on p.oid = i.inhparent
    where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace
      and c.reltuples >= ${LARGE_TABLE_ROWS}`;
  const large = new Set(tables.map((row) => row.relname));
  const largeTables = new Set(tables.map((row) => row.logical));
  const found: { query: string; plan: string; waste: string[] }[] = [];
  for (const { query, parameters } of statements) {
    const read = /^\s*(select|with)\b/i.test(query);
    if (!read && !/^\s*(insert|update|delete)\b/i.test(query)) continue;
    const custom = await t.deps.sql.unsafe(
      `explain (${read ? "analyze, " : ""}format json) ${query}`,
      parameters as never[],
    );
    found.push({ query, plan: "custom", waste: wasteIn(custom, large) });
    // Statements are prepared (decision 0033), so after five runs Postgres may use a plan made
    // without the values: a read must be an index read that way too.
    if (read)
      await t.deps.sql.begin(async (session) => {
        await session.unsafe(`prepare hot as ${query}`);
        await session.unsafe("set local plan_cache_mode = force_generic_plan");
        const generic = await session.unsafe(
          `explain (analyze, format json) execute hot${parameters.length ? `(${parameters.map(literal).join(", ")})` : ""}`,
        );
        await session.unsafe("deallocate hot");
        found.push({ query, plan: "generic", waste: wasteIn(generic, large) });
      });
  }
  return { large: largeTables, found };
}

it("GET /updates, the cursor, history and GET /conversations read only what they answer", async () => {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Busy",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  // An agent whose only event is older than the whole seeded log: reading "after my cursor"
  // must not walk the log to find out there is nothing.
  const quiet = await createAgent(t.deps, { ownerId: owner.id, displayName: "Quiet" });
  await addContact(t.deps, person.id, quiet.id, []);
  const quietCursor = await latestSeq(t.deps, quiet.id);
  // A log shared with a thousand other agents, a tenth of it this agent's; a long history.
  await t.deps.sql`
    insert into events (id, agent_id, person_id, type, ts, payload)
    select 'evt_seed' || g,
           case when g % 10 = 0 then ${agent.id} else 'agt_seed' || (g % 1000) end,
           ${person.id}, 'message.received', now(), '{}'::jsonb
    from generate_series(1, ${SEEDED_EVENTS}) g`;
  await t.deps.sql`
    insert into messages (id, conversation_id, sender_id, type, content, created_at)
    select 'msg_seed' || g, ${conversationId}, ${person.id}, 'text', 'line ' || g, now()
    from generate_series(1, ${SEEDED_MESSAGES}) g`;
  await t.deps.sql`analyze events`;
  await t.deps.sql`analyze messages`;
  const cursor = Number((await t.deps.sql`select max(seq) as seq from events`)[0]?.seq);
  await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "new" });

  const { large, found } = await wastefulReadsOf(async () => {
    const fresh = await readEvents(deps, agent.id, cursor, 100); // GET /updates with news
    expect(fresh.events.map((event) => event.type)).toEqual(["message.received"]);
    await readEvents(deps, agent.id, fresh.nextSeq, 100); // nothing new
    await latestSeq(deps, agent.id); // GET /updates/cursor
    const page = await listAgentMessages(deps, agent.id, conversationId, { limit: 50 });
    expect(page).toMatchObject({ hasMore: true });
    expect(page.messages).toHaveLength(50);
    await listAgentMessages(deps, agent.id, conversationId, {
      limit: 50,
      before: page.messages[0]?.id,
    });
    // The route's one statement: the access check, the anchor and the body Postgres writes.
    const json = await listAgentMessagesJson(deps, agent.id, conversationId, { limit: 50 });
    expect(json.text).toBe(JSON.stringify(page));
    await listAgentMessagesJson(deps, agent.id, conversationId, {
      limit: 50,
      before: page.messages[0]?.id,
    });
    await listAgentConversations(deps, agent.id);
    expect((await readEvents(deps, quiet.id, quietCursor, 100)).events).toEqual([]);
    expect((await readEvents(deps, quiet.id, 0, 100)).events).toHaveLength(1);
    expect(await latestSeq(deps, quiet.id)).toBe(quietCursor);
  });
  expect([...large].sort()).toEqual(["events", "messages"]);
  expect(found.filter((statement) => statement.plan === "generic").length).toBeGreaterThan(5);
  expect(found.filter((statement) => statement.waste.length > 0)).toEqual([]);
}, 180_000);
