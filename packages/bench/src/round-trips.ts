import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import postgres from "postgres";
import { cpuSnapshot, cpuSpent } from "./process-cpu";

/**
 * `npm run bench -- --bench=round-trips`: what a send's round trips to Postgres cost, with no
 * HTTP and no service, to size decision 0078's open design change before building it. Each
 * "send" is the same five statements on stand-in tables (the admission's counter with its
 * asynchronous commit, the access read, the charge's counter, the message insert, COMMIT) over
 * 25 agents, written to Postgres three ways on one reserved connection per client:
 * - three writes, as a repeat send goes today: the admission on its own; BEGIN with the access
 *   read, the charge and the insert; COMMIT once their answers are back;
 * - two writes: the admission moved into the send's transaction; COMMIT after the answers;
 * - one write: COMMIT sent with everything else (possible only when every refusal is decided
 *   in SQL, so a refused send's statement fails and the COMMIT rolls back);
 * - the admission, then one statement: the read, the charge and the insert as the parts of one
 *   statement that commits on its own, its refusals raised by a guard function (a raise rolls
 *   the whole statement back), as a send with no BEGIN and no COMMIT would be, let in as today;
 * - one statement: the admission as a part of it too.
 * At 1 and 50 connections, the four in turn, two rounds (one with `--quick`), with the CPU time
 * per send of this process (the clients: postgres.js) and of all of Postgres. Loopback only.
 */
const quick = process.argv.includes("--quick");
const SECONDS = quick ? 1 : 4;
const ROUNDS = quick ? 1 : 2;
const AGENTS = 25;
const CONNECTIONS = [1, 50];
const CONTENT = "Of course. I drafted it and put it in your tasks for the week; have a look soon.";

type Shape =
  | "three writes"
  | "two writes"
  | "one write"
  | "admission, then one statement"
  | "one statement";
const shapes: Shape[] = [
  "three writes",
  "two writes",
  "one write",
  "admission, then one statement",
  "one statement",
];

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const sql = postgres(database.url, { max: Math.max(...CONNECTIONS), onnotice: () => {} });
await sql.unsafe(`
  create table bench_counters (key text, window_start timestamptz, count int not null,
    primary key (key, window_start));
  create table bench_standing (agent text, person text, scopes text[] not null,
    primary key (agent, person));
  create table bench_messages (id bigserial primary key, conversation text not null,
    sender text not null, content text not null, created_at timestamptz not null default now());
  create index on bench_messages (conversation, id);
  insert into bench_standing select 'a' || i, 'p' || i, array['messages:write']
    from generate_series(0, ${AGENTS - 1}) i;
  create function bench_expect(ok boolean, refusal text) returns boolean language plpgsql as $$
    begin
      if ok is not true then raise exception '%', refusal; end if;
      return true;
    end $$;
`);

/** One client's sends for `until`, in `shape`; answers how many went out. */
async function client(
  connection: postgres.ReservedSql,
  index: number,
  shape: Shape,
  until: number,
) {
  const agent = `a${index % AGENTS}`;
  const person = `p${index % AGENTS}`;
  const window = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
  const c = connection;
  // Alone, the admission commits asynchronously (as the service's does); inside the send's
  // transaction it must not: `set_config(…, true)` holds to the end of the transaction, and would
  // make the send's own COMMIT skip its WAL flush too.
  const admission = (alone: boolean) => c`
    with async_commit as (select set_config('synchronous_commit', ${alone ? "off" : "on"}, true))
    insert into bench_counters select ${`requests:${agent}`}, ${window}::timestamptz, 1
      from async_commit
    on conflict (key, window_start) do update set count = bench_counters.count + 1
    returning count`;
  const send = () => [
    c`select scopes from bench_standing where agent = ${agent} and person = ${person}`,
    c`insert into bench_counters values (${`messages:${agent}`}, ${window}::timestamptz, 1)
      on conflict (key, window_start) do update set count = bench_counters.count + 1
      returning count`,
    c`insert into bench_messages (conversation, sender, content)
      values (${`${agent}:${person}`}, ${agent}, ${CONTENT}) returning id`,
  ];
  // Every part sees the statement's one snapshot; the guard reads the parts' answers (each CTE
  // runs once, whether or not the final select reads it) and raises when one refuses.
  const oneStatement = (admitted: boolean) => c`
    with admitted as (
      insert into bench_counters select ${`requests:${agent}`}, ${window}::timestamptz, 1
        where ${!admitted}
      on conflict (key, window_start) do update set count = bench_counters.count + 1
      returning count
    ), standing as (
      select scopes from bench_standing where agent = ${agent} and person = ${person}
    ), charged as (
      insert into bench_counters values (${`messages:${agent}`}, ${window}::timestamptz, 1)
      on conflict (key, window_start) do update set count = bench_counters.count + 1
      returning count
    ), stored as (
      insert into bench_messages (conversation, sender, content)
      values (${`${agent}:${person}`}, ${agent}, ${CONTENT}) returning id
    )
    select stored.id,
      bench_expect(coalesce((select count from admitted), 0) <= 1000000000, 'rate_limited'),
      bench_expect((select 'messages:write' = any(scopes) from standing), 'scope_not_granted'),
      bench_expect((select count from charged) <= 1000000000, 'rate_limited')
    from stored`;
  let sent = 0;
  while (Date.now() < until) {
    if (shape === "three writes") {
      await admission(true);
      await Promise.all([c`begin`, ...send()]);
      await c`commit`;
    } else if (shape === "two writes") {
      await Promise.all([c`begin`, admission(false), ...send()]);
      await c`commit`;
    } else if (shape === "one write") {
      // Issued in one tick, postgres.js writes them to the socket together.
      await Promise.all([c`begin`, admission(false), ...send(), c`commit`]);
    } else if (shape === "admission, then one statement") {
      await admission(true);
      await oneStatement(true);
    } else {
      await oneStatement(false);
    }
    sent++;
  }
  return sent;
}

// The one statement's guard refuses as a send must: nothing it counted or stored is left.
await sql`update bench_standing set scopes = '{}' where agent = 'a0'`;
const check = await sql.reserve();
const refusal = await client(check, 0, "one statement", Date.now() + 60_000).then(
  () => "sent",
  (error: Error) => error.message,
);
check.release();
const [left] = await sql`select (select count(*) from bench_counters)::int as counts,
  (select count(*) from bench_messages)::int as messages`;
if (refusal !== "scope_not_granted" || left?.counts !== 0 || left?.messages !== 0)
  throw new Error(`the one statement's refusal: ${refusal}, left ${JSON.stringify(left)}`);
await sql`update bench_standing set scopes = array['messages:write'] where agent = 'a0'`;

const results = new Map<string, number[]>();
/** CPU ms per send, this process's and Postgres's, of each cell's best round. */
const cpu = new Map<string, { client: number; postgres: number }>();
for (let round = 0; round < ROUNDS; round++)
  for (const connections of CONNECTIONS)
    for (const shape of shapes) {
      const reserved = await Promise.all(Array.from({ length: connections }, () => sql.reserve()));
      const before = cpuSnapshot({ client: process.pid }, database.name);
      const until = Date.now() + SECONDS * 1000;
      const counts = await Promise.all(reserved.map((c, i) => client(c, i, shape, until)));
      const spent = cpuSpent(before, cpuSnapshot({ client: process.pid }, database.name));
      for (const c of reserved) c.release();
      const key = `${connections} ${shape}`;
      const sends = counts.reduce((a, b) => a + b, 0);
      const rates = [...(results.get(key) ?? []), sends / SECONDS];
      if (sends / SECONDS >= Math.max(...rates))
        cpu.set(key, {
          client: (spent.client ?? 0) / sends,
          postgres: (spent.postgres ?? 0) / sends,
        });
      results.set(key, rates);
    }

console.log(
  `\nA send's round trips to Postgres (no HTTP), ${ROUNDS} × ${SECONDS} s per cell, ${AGENTS} agents\n`,
);
console.log(
  "| connections | shape | sends/s by round | ms per send (best) | × three writes | CPU ms per send: client + Postgres |",
);
console.log("|---|---|---|---|---|---|");
for (const connections of CONNECTIONS) {
  const best = (shape: Shape) => Math.max(...(results.get(`${connections} ${shape}`) ?? [0]));
  for (const shape of shapes) {
    const rates = results.get(`${connections} ${shape}`) ?? [];
    const used = cpu.get(`${connections} ${shape}`);
    console.log(
      `| ${connections} | ${shape} | ${rates.map((r) => r.toFixed(0)).join(", ")} | ${((1000 * connections) / best(shape)).toFixed(3)} | ${(best(shape) / best("three writes")).toFixed(2)} | ${used ? `${used.client.toFixed(3)} + ${used.postgres.toFixed(3)}` : ""} |`,
    );
  }
}

await sql.end();
await dropDatabase(server.adminUrl, database.name);
await server.stop();
