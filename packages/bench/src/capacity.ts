import { performance } from "node:perf_hooks";
import { createDeps, loadConfig, sendAgentMessage, sendPersonMessage } from "@switchboard/core";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import postgres from "postgres";
import { raisedLimits, sendingContacts } from "./api-fixture";
import { messageText } from "./floor";

/**
 * `npm run bench -- --bench=capacity`: the inputs of docs/capacity.md's model that the HTTP bench
 * does not give. (1) What one send writes, by pg_current_wal_lsn() before and after N sends
 * through core (one at a time, nothing else on the database): WAL bytes, transactions and
 * statements (pg_stat_database's commits; tuples written) per send, an agent's send to a person
 * and a person's to an agent (which appends the agent's event and wakes its listeners). (2)
 * What the NOTIFY in a send's transaction costs: Postgres takes one lock for every committing
 * transaction that notified, so such commits are serialised; transactions shaped like a send's
 * (an insert of a message-sized row, then commit) at 50 connections without a NOTIFY, with a
 * `pg_notify` in each, and with the wakes coalesced into one NOTIFY after commit (each issued
 * while none is running, carrying every topic committed meanwhile), rounds alternating, with a
 * listener connected as the service has; and, in the same rounds, real agent sends through core
 * (`sendAgentMessage`, POST /messages' work) at 50 connections, whose wake-ups core issues as
 * the code at hand does (after commit, coalesced: decision 0077): its ratio to the no-NOTIFY
 * shape is what to compare across versions.
 * `--quick`: 200 sends and 2 s rounds instead of 1,000 and 5 s. WAL is the whole cluster's: run it
 * without DATABASE_URL (the bench's own embedded Postgres), or on a server nothing else writes to.
 */
const quick = process.argv.includes("--quick");
const SENDS = quick ? 200 : 1000;
const SECONDS = quick ? 2 : 5;
const ROUNDS = 2;
const CONNECTIONS = 50;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const { deps, close } = createDeps(loadConfig({ DATABASE_URL: database.url, ...raisedLimits }), {
  poolSize: 4,
});
const sql = postgres(database.url, { max: 4, onnotice: () => {} });
/** The 50 connections every measured transaction runs on: the send-shaped ones and core's. */
const wide = createDeps(loadConfig({ DATABASE_URL: database.url, ...raisedLimits }), {
  poolSize: CONNECTIONS,
});

/** WAL position, and the database's commits and tuples written so far. */
async function counters() {
  const [row] = await sql<{ lsn: string; commits: string; written: string }[]>`
    select pg_current_wal_lsn()::text as lsn, xact_commit::text as commits,
      (tup_inserted + tup_updated + tup_deleted)::text as written
    from pg_stat_database where datname = current_database()`;
  return row as { lsn: string; commits: string; written: string };
}

/** WAL bytes, commits and tuples written per call of `work`, over `count` calls one at a time. */
async function perCall(count: number, work: (i: number) => Promise<unknown>) {
  // pg_stat_database is updated when a backend reports (at most every 0.5–1 s): settle first.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const before = await counters();
  const started = performance.now();
  for (let i = 0; i < count; i++) await work(i);
  const ms = (performance.now() - started) / count;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const after = await counters();
  const [wal] = await sql<{ bytes: string }[]>`
    select pg_wal_lsn_diff(${after.lsn}::pg_lsn, ${before.lsn}::pg_lsn)::text as bytes`;
  // Less this bench's own reads of the counters (one commit each, two reads in between).
  return {
    walBytes: Number(wal?.bytes) / count,
    commits: (Number(after.commits) - Number(before.commits) - 1) / count,
    written: (Number(after.written) - Number(before.written)) / count,
    ms,
  };
}

type Wake = "none" | "in the transaction" | "coalesced after commit";

/**
 * After-commit wakes, coalesced: the topics committed while a NOTIFY is being issued wait for
 * the next one, which carries them all (one statement, its own transaction).
 */
function coalescer() {
  let pending: string[] = [];
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const flush = async (): Promise<void> => {
    while (pending.length > 0) {
      const topics = [...new Set(pending)];
      pending = [];
      await wide.deps.sql`select pg_notify('capacity', p) from unnest(${topics}::text[]) as p`;
    }
    busy = false;
  };
  return {
    add(topic: string) {
      pending.push(topic);
      if (busy) return;
      busy = true;
      running = flush();
    },
    /** Resolves once every topic added so far is notified. */
    settled: () => running,
  };
}

/** Transactions/s at CONNECTIONS, each an insert of a message-sized row, woken as `wake` says. */
async function sendShaped(wake: Wake): Promise<number> {
  const notify = wake === "in the transaction";
  const after = wake === "coalesced after commit" ? coalescer() : undefined;
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      while (performance.now() < until) {
        await wide.deps.sql.begin(async (tx) => {
          await tx`insert into capacity_messages (conversation, content)
            values (${`c${c}`}, ${messageText(done)})`;
          if (notify) await tx`select pg_notify('capacity', ${`agent:${c}`})`;
        });
        after?.add(`agent:${c}`);
        done++;
      }
    }),
  );
  await after?.settled();
  return done / SECONDS;
}

/** Real agent sends/s at CONNECTIONS through a pool of that size, each to one of `contacts`. */
async function realSends(contacts: Awaited<ReturnType<typeof sendingContacts>>): Promise<number> {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      const contact = contacts[c % contacts.length] as (typeof contacts)[number];
      while (performance.now() < until) {
        await sendAgentMessage(
          wide.deps,
          { agentId: contact.agent.id },
          { to: contact.person.num, type: "text", content: messageText(done) },
        );
        done++;
      }
    }),
  );
  return done / SECONDS;
}

try {
  const contacts = await sendingContacts(deps, 25);
  const lines: string[] = [];
  const agentSends = await perCall(SENDS, (i) => {
    const contact = contacts[i % contacts.length] as (typeof contacts)[number];
    return sendAgentMessage(
      deps,
      { agentId: contact.agent.id },
      { to: contact.person.num, type: "text", content: messageText(i) },
    );
  });
  const personSends = await perCall(SENDS, (i) => {
    const contact = contacts[i % contacts.length] as (typeof contacts)[number];
    return sendPersonMessage(deps, contact.person.id, contact.agent.id, {
      type: "text",
      content: messageText(i),
    });
  });
  const row = (name: string, r: Awaited<ReturnType<typeof perCall>>) =>
    `| ${name} | ${Math.round(r.walBytes)} | ${r.commits.toFixed(2)} | ${r.written.toFixed(1)} | ${r.ms.toFixed(2)} |`;
  lines.push(
    ...(process.env.DATABASE_URL
      ? ["(DATABASE_URL's server: its WAL counts every other database's writes too)", ""]
      : []),
    `What one send writes, ${SENDS} sends one at a time through core, ~80-character text`,
    "",
    "| send | WAL bytes | transactions (reads included) | tuples written | ms (one at a time) |",
    "|---|---|---|---|---|",
    row("an agent's, to a person (POST /messages)", agentSends),
    row("a person's, to an agent (its event appended)", personSends),
  );

  await sql`create table capacity_messages (id bigint generated always as identity primary key,
    conversation text not null, content text not null, created_at timestamptz not null default now())`;
  const listener = await sql.listen("capacity", () => {});
  // The service's own LISTEN, as a web process has it.
  const unsubscribe = await wide.deps.notifier.subscribe("agent:capacity", () => {});
  const wakes: Wake[] = ["none", "in the transaction", "coalesced after commit"];
  const rounds = new Map<Wake, number[]>(wakes.map((wake) => [wake, []]));
  const sends: number[] = [];
  await sendShaped("in the transaction"); // warm-up
  await realSends(contacts);
  for (let round = 0; round < ROUNDS; round++) {
    for (const wake of wakes) rounds.get(wake)?.push(await sendShaped(wake));
    sends.push(await realSends(contacts));
  }
  unsubscribe();
  await listener.unlisten();
  const mean = (all: number[]) => Math.round(all.reduce((a, b) => a + b, 0) / all.length);
  lines.push(
    "",
    `A send-shaped transaction (insert, commit) at ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s alternating, a listener connected`,
    "",
    "| NOTIFY | per s (each round) | mean | × none |",
    "|---|---|---|---|",
    ...wakes.map((wake) => {
      const all = rounds.get(wake) ?? [];
      const none = mean(rounds.get("none") ?? []);
      return `| ${wake} | ${all.map(Math.round).join(", ")} | ${mean(all)} | ${(mean(all) / Math.max(none, 1)).toFixed(2)} |`;
    }),
    `| (real agent sends through core, as this version wakes) | ${sends.map(Math.round).join(", ")} | ${mean(sends)} | ${(mean(sends) / Math.max(mean(rounds.get("none") ?? []), 1)).toFixed(2)} |`,
  );
  console.log(lines.join("\n"));
} finally {
  await sql.end();
  await wide.close();
  await close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}
