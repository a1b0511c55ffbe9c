import { performance } from "node:perf_hooks";
import {
  authorizeAgentRequest,
  checkAgentAccess,
  createDeps,
  listAgentMessages,
  loadConfig,
  pollEvents,
  sendAgentMessage,
} from "@switchboard/core";
import { createDb } from "@switchboard/db";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { raisedLimits, sendingContacts } from "./api-fixture";

/**
 * `npm run bench`, in-process part: what each hot call costs the service without HTTP around
 * it, next to a bare `select 1`, and how many statements it sends (each a round trip to
 * Postgres unless sent together), on a real Postgres (DATABASE_URL's server, or an embedded one).
 * One connection, one call at a time. Loopback only; bounded in count.
 */
const quick = process.argv.includes("--quick");
const ITERATIONS = quick ? 300 : 3000;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const config = loadConfig({ DATABASE_URL: database.url, ...raisedLimits });
const { deps, close } = createDeps(config, { poolSize: 1 });
let statements = 0;
const counting = createDb(database.url, { max: 1, debug: () => statements++ });
const countingDeps = { ...deps, db: counting.db, sql: counting.sql };

try {
  const [contact] = await sendingContacts(deps, 1);
  if (!contact) throw new Error("no contact");
  const { agent, person, conversationId } = contact;
  const token = contact.auth.replace("Bearer agent:", "");
  const send = { to: person.num, type: "text" as const, content: "bench" };
  for (let i = 0; i < 60; i++) await sendAgentMessage(deps, { agentId: agent.id }, send);
  const { nextSeq } = await pollEvents(deps, agent.id, { afterSeq: 0, limit: 100, wait: 0 });

  const calls: [string, (d: typeof deps) => Promise<unknown>][] = [
    ["bare `select 1`", (d) => d.sql`select 1`],
    ["auth + request limit (every call)", (d) => authorizeAgentRequest(d, token)],
    [
      "access check (a send's)",
      (d) =>
        checkAgentAccess(
          d,
          agent.id,
          { to: person.num },
          { scope: "messages:write", initiating: true },
        ),
    ],
    ["text send (after auth)", (d) => sendAgentMessage(d, { agentId: agent.id }, send)],
    [
      "GET /updates, nothing new (after auth)",
      (d) => pollEvents(d, agent.id, { afterSeq: nextSeq, limit: 100, wait: 0 }),
    ],
    [
      "history, limit=50 (after auth)",
      (d) => listAgentMessages(d, agent.id, conversationId, { limit: 50 }),
    ],
  ];
  const rows: string[] = [];
  for (const [name, call] of calls) {
    const timing = await measure(() => call(deps));
    // The same call once more over a connection that counts what it sends (warmed first).
    await call(countingDeps);
    statements = 0;
    await call(countingDeps);
    rows.push(
      `| ${name} | ${timing.meanMs} | ${timing.p50Ms} | ${timing.p99Ms} | ${timing.perSecond} | ${statements} |`,
    );
  }
  console.log(
    [
      `In-process, one connection, ${ITERATIONS} calls after 200 warm-up`,
      "",
      "| call | mean ms | p50 ms | p99 ms | calls/s | statements |",
      "|---|---|---|---|---|---|",
      ...rows,
    ].join("\n"),
  );
} finally {
  await counting.close();
  await close();
  await dropDatabase(server.adminUrl, database.name);
  await server.stop();
}

async function measure(run: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => round(samples[Math.floor(q * (samples.length - 1))] ?? 0);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    meanMs: round(mean),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    perSecond: Math.round(1000 / mean),
  };
}

function round(n: number) {
  return Math.round(n * 1000) / 1000;
}
