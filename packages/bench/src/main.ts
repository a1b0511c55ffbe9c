import { performance } from "node:perf_hooks";
import {
  authorizeAgentRequest,
  createAgent,
  createDeps,
  createUser,
  loadConfig,
  mintAgentToken,
} from "@switchboard/core";
import { schema } from "@switchboard/db";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";

/**
 * `npm run bench`: the per-request cost of auth + account state + the request limit
 * (`authorizeAgentRequest`) next to a bare one-query round trip, on a real Postgres (DATABASE_URL's
 * server, or an embedded one). Loopback only; bounded in count.
 */
const ITERATIONS = 3000;

const server = await startTestDatabaseServer();
const database = await createTestDatabase(server);
const config = loadConfig({ DATABASE_URL: database.url, LIMIT_REQUESTS_PER_MIN: "100000000" });
const { deps, close } = createDeps(config, { poolSize: 1 });
let queries = 0;
const counting = postgres(database.url, { max: 1, debug: () => queries++, onnotice: () => {} });

try {
  const owner = await createUser(deps, {});
  const agent = await createAgent(deps, { ownerId: owner.id, displayName: "Bench" });
  const { token } = await mintAgentToken(deps, agent.id);

  const bare = await measure(() => deps.sql`select 1`);
  const authorize = await measure(() => authorizeAgentRequest(deps, token));

  // Round trips per call: the same function over a connection that counts the queries it sends.
  const countingDeps: typeof deps = {
    ...deps,
    db: drizzle(counting, { schema, casing: "snake_case" }),
  };
  await counting`select 1`; // a new connection first looks up types, once
  queries = 0;
  await authorizeAgentRequest(countingDeps, token);
  const perCall = queries;

  console.log(
    JSON.stringify(
      {
        iterations: ITERATIONS,
        bareQuery: bare,
        authorizeAgentRequest: { ...authorize, roundTripsPerCall: perCall },
        overheadOverBareMs: round(authorize.meanMs - bare.meanMs),
      },
      null,
      2,
    ),
  );
} finally {
  await counting.end();
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
  return {
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    perSecond: Math.round(1000 / (samples.reduce((a, b) => a + b, 0) / samples.length)),
  };
}

function round(n: number) {
  return Math.round(n * 1000) / 1000;
}
