import { performance } from "node:perf_hooks";
import { eventExamples } from "@switchboard/contract";
import {
  addContact,
  type CoreDeps,
  cleanupExpired,
  createAgent,
  createDeps,
  createUser,
  latestSeq,
  listAgentConversations,
  listAgentMessages,
  loadConfig,
  ManualClock,
  readEvents,
  sendPersonMessage,
} from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";

/**
 * `npm run bench`, scale: the hot reads' latency with a small log and with a large one. The log
 * is shared with a thousand other agents (a tenth of it this agent's), the history is one long
 * conversation; both are generated in Postgres (`generate_series`), never kept in git. Each read
 * is the core function the route calls, in-process, so only the database's part changes.
 * Full run: 10 k → 10 M events and 10 k → 1 M messages; `--quick`: → 1 M and 100 k.
 *
 * The large log's reads are measured twice: as the service runs them, every session with
 * `plan_cache_mode = force_generic_plan` (packages/db/src/client.ts), and as Postgres would plan
 * the prepared statements by itself (`auto`, on a one-connection pool of its own): the log is
 * partitioned (decision 0047), which makes the custom plans `auto` picks dearer.
 * Then retention over the large log: the log spans SPAN_DAYS days (ts follows seq, as appends
 * make it) in partitions of a quarter of RETENTION_DAYS; the retention pass drops the oldest
 * partition, and the old way, a DELETE of the next partition's rows, is timed beside it.
 */
const quick = process.argv.includes("--quick");
const SMALL = 10_000;
const LARGE_EVENTS = quick ? 1_000_000 : 10_000_000;
const LARGE_MESSAGES = quick ? 100_000 : 1_000_000;
const CHUNK = 1_000_000;
const SAMPLES = 300;
const ROUNDS = 5;
const RETENTION_DAYS = 28;
const SPAN_DAYS = 35;
const DAY_MS = 24 * 3600_000;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const config = loadConfig({
  ...TEST_KEYS,
  DATABASE_URL: database.url,
  EVENT_RETENTION_DAYS: String(RETENTION_DAYS),
});
const clock = new ManualClock();
const { deps, close } = createDeps(config, { poolSize: 2, clock });

// A real event's payload, so reads that reach seeded events show them as they would any.
const payload = JSON.stringify(eventExamples["message.received"]);
let events = 0;
let messages = 0;
/**
 * Where the log's days start: the end of the partition the migration made. Maintenance runs as
 * if each day passed, so the partitions of the whole span exist before anything is seeded.
 */
async function prepareSpan(): Promise<number> {
  const [history] = await deps.sql<{ to: Date }[]>`
    select (regexp_match(pg_get_expr(relpartbound, oid), 'TO \\(''(.+)''\\)'))[1]::timestamptz as "to"
    from pg_class where relname = 'events_history'`;
  const start = new Date(history?.to as Date).getTime();
  if (!(start > Date.now() - DAY_MS)) throw new Error("the log's partitions are not as expected");
  // Up to two days before the span's end: later, the retention would drop the first partition.
  for (let day = 0; day <= SPAN_DAYS - 2; day++) {
    clock.set(new Date(start + day * DAY_MS));
    await cleanupExpired(deps);
  }
  clock.set(new Date(start + SPAN_DAYS * DAY_MS));
  return start;
}

async function seedTo(
  start: number,
  eventCount: number,
  messageCount: number,
  agentId: string,
  personId: string,
  conversationId: string,
) {
  while (events < eventCount) {
    const to = Math.min(eventCount, events + CHUNK);
    await deps.sql`
      insert into events (id, agent_id, person_id, type, ts, payload)
      select 'evt_seed' || g,
             case when g % 10 = 0 then ${agentId} else 'agt_seed' || (g % 1000) end,
             ${personId}, 'message.received',
             ${new Date(start).toISOString()}::timestamptz
               + make_interval(secs => g * ${(SPAN_DAYS * DAY_MS) / 1000 / LARGE_EVENTS}::float8),
             ${payload}::jsonb
      from generate_series(${events + 1}::int, ${to}::int) g`;
    events = to;
    console.error(`  events: ${events.toLocaleString()}`);
  }
  while (messages < messageCount) {
    const to = Math.min(messageCount, messages + CHUNK);
    await deps.sql`
      insert into messages (id, conversation_id, sender_id, type, content, created_at)
      select 'msg_seed' || g, ${conversationId}, ${personId}, 'text', 'line ' || g, now()
      from generate_series(${messages + 1}::int, ${to}::int) g`;
    messages = to;
  }
  // Vacuumed too, as a table that has lived a while is: otherwise the autovacuum that 10 M new
  // rows set off runs during the measurement, on the same two cores.
  await deps.sql`vacuum analyze events`;
  await deps.sql`vacuum analyze messages`;
  await deps.sql`checkpoint`; // the seeding's writes flushed now, not while measuring
}

/**
 * The p50 of a read, as the lowest of ROUNDS rounds' p50s: on a shared 2-core machine a busy
 * moment (a checkpoint, the other tenant) moves one round, not all of them.
 */
async function p50(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 30; i++) await run();
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const spans: number[] = [];
    for (let i = 0; i < SAMPLES / ROUNDS; i++) {
      const started = performance.now();
      await run();
      spans.push(performance.now() - started);
    }
    spans.sort((a, b) => a - b);
    rounds.push(spans[Math.floor(spans.length / 2)] as number);
  }
  return Math.min(...rounds);
}

/** Times one run of `work`, in ms. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The oldest partition maintenance made and how many events it holds. */
async function oldestPartition() {
  const [oldest] = await deps.sql<{ name: string }[]>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'events'::regclass and c.relname ~ '^events_[0-9]{8}$'
    order by c.relname limit 1`;
  const name = oldest?.name as string;
  const [counted] = await deps.sql<
    { rows: number }[]
  >`select count(*)::int as rows from ${deps.sql(name)}`;
  return { name, rows: counted?.rows ?? 0 };
}

/**
 * The large log's reads as Postgres plans prepared statements by itself: a second pool of one
 * connection whose session is set back to `plan_cache_mode = auto`.
 */
async function measureAutoPlans(agentId: string, conversationId: string) {
  const auto = createDeps(config, { poolSize: 1, clock });
  try {
    await auto.deps.sql`set plan_cache_mode = auto`;
    return await measure(auto.deps, agentId, conversationId);
  } finally {
    await auto.close();
  }
}

async function measure(on: CoreDeps, agentId: string, conversationId: string) {
  const cursor = await latestSeq(on, agentId);
  const reads = {
    "GET /updates (nothing new)": () => readEvents(on, agentId, cursor, 100),
    "GET /updates (the last 100)": () => readEvents(on, agentId, cursor - 1000, 100),
    "GET /updates/cursor": () => latestSeq(on, agentId),
    "history, limit=50": () => listAgentMessages(on, agentId, conversationId, { limit: 50 }),
    "GET /conversations": () => listAgentConversations(on, agentId),
  };
  const result: Record<string, number> = {};
  for (const [name, run] of Object.entries(reads)) result[name] = await p50(run);
  return result;
}

try {
  const start = await prepareSpan();
  const owner = await createUser(deps, {});
  const person = await createUser(deps, { displayName: "Pat" });
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Busy",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(deps, person.id, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  const measureNow = async () => {
    await sendPersonMessage(deps, person.id, agent.id, { type: "text", content: "newest" });
    return measure(deps, agent.id, conversationId);
  };

  await seedTo(start, SMALL, SMALL, agent.id, person.id, conversationId);
  const small = await measureNow();
  const seeding = performance.now();
  await seedTo(start, LARGE_EVENTS, LARGE_MESSAGES, agent.id, person.id, conversationId);
  const seededSeconds = Math.round((performance.now() - seeding) / 1000);
  const large = await measureNow();
  const automatic = await measureAutoPlans(agent.id, conversationId);

  // Retention at the span's end: the oldest partition is wholly past it and is dropped.
  const dropped = await oldestPartition();
  const dropMs = await timed(() => cleanupExpired(deps));
  // The old way on the next one: what cleanup did before the log was partitioned.
  const next = await oldestPartition();
  const cutoff = new Date(start + (SPAN_DAYS - RETENTION_DAYS + 7) * DAY_MS);
  const deleteMs = await timed(
    () => deps.sql`delete from events where ts < ${cutoff.toISOString()}::timestamptz returning id`,
  );

  const fmt = (n: number) => n.toLocaleString();
  console.log(
    [
      `Scale: events ${fmt(SMALL)} → ${fmt(LARGE_EVENTS)}, messages ${fmt(SMALL)} → ${fmt(LARGE_MESSAGES)} (seeded in ${seededSeconds} s), p50 of ${SAMPLES} calls (the best of ${ROUNDS} rounds)`,
      "",
      "| read | small ms | large ms | large / small | large ms, plans left to Postgres (`auto`) |",
      "|---|---|---|---|---|",
      ...Object.keys(small).map(
        (name) =>
          `| ${name} | ${(small[name] as number).toFixed(3)} | ${(large[name] as number).toFixed(3)} | ${((large[name] as number) / (small[name] as number)).toFixed(2)} | ${(automatic[name] as number).toFixed(3)} |`,
      ),
      "",
      `Retention over ${fmt(LARGE_EVENTS)} events spanning ${SPAN_DAYS} days, ${RETENTION_DAYS}-day retention (${RETENTION_DAYS / 4}-day partitions):`,
      "",
      "| retention pass | events removed | ms |",
      "|---|---|---|",
      `| maintenance pass, drops partition ${dropped.name} | ${fmt(dropped.rows)} | ${dropMs.toFixed(0)} |`,
      `| DELETE of the next partition's rows (the way before decision 0047) | ${fmt(next.rows)} | ${deleteMs.toFixed(0)} |`,
    ].join("\n"),
  );
} finally {
  await close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
