import { createDeps, loadConfig } from "@switchboard/core";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import autocannon from "autocannon";
import { raisedLimits, sendingContacts, sendsInTurn, startBenchService } from "./api-fixture";

/**
 * `npm run bench`, two processes: POST /messages over 25 agents at 50 connections against one
 * web process, then against two web processes (each with its worker) on the same Postgres, 25
 * connections each at the same time. Prints both totals and their ratio. `--quick`: 1 s runs.
 */
const quick = process.argv.includes("--quick");
const SECONDS = quick ? 1 : 5;
const AGENTS = 25;

const dbServer = await startTestDatabaseServer();
const database = await createTestDatabase(dbServer);
const { deps, close } = createDeps(loadConfig({ DATABASE_URL: database.url, ...raisedLimits }), {
  poolSize: 2,
});
const services = [await startBenchService(database.url), await startBenchService(database.url)];

try {
  const contacts = await sendingContacts(deps, AGENTS);
  const sends = (url: string, connections: number, duration = SECONDS) =>
    autocannon({ url, connections, duration, requests: [sendsInTurn(contacts, "two")] });
  const [first, second] = services.map((s) => s.webUrl.replace("localhost", "127.0.0.1")) as [
    string,
    string,
  ];
  await Promise.all([sends(first, 4, 1), sends(second, 4, 1)]); // warm up both
  const one = await sends(first, 50);
  const two = await Promise.all([sends(first, 25), sends(second, 25)]);
  const oneRps = Math.round(one.requests.average);
  const twoRps = Math.round(two.reduce((sum, run) => sum + run.requests.average, 0));
  const problems = [one, ...two].reduce((sum, run) => sum + run.non2xx + run.errors, 0);
  console.log(
    JSON.stringify(
      {
        postMessages: {
          oneProcessReqPerSec: oneRps,
          twoProcessesReqPerSec: twoRps,
          ratio: Math.round((twoRps / oneRps) * 100) / 100,
          not2xx: problems,
        },
      },
      null,
      2,
    ),
  );
} finally {
  await Promise.all(services.map((s) => s.stop()));
  await close();
  await dropDatabase(dbServer.adminUrl, database.name);
  await dbServer.stop();
}
