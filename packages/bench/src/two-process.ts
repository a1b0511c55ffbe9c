import { availableParallelism } from "node:os";
import { createDeps, loadConfig } from "@switchboard/core";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import autocannon from "autocannon";
import { raisedLimits, sendingContacts, sendsInTurn, startBenchService } from "./api-fixture";
import { cpuSnapshot, cpuSpent, machineBusyMs } from "./process-cpu";

/**
 * `npm run bench`, two processes: POST /messages over 25 agents at 50 connections against one
 * web process, then against two web processes (each with its worker) on the same Postgres, 25
 * connections each at the same time. Prints both totals and their ratio, and for each run the
 * CPU time per send by process group (each web process, each worker, the Postgres processes
 * that serve the run's database, this process: autocannon, the client) and the machine's CPU
 * not ours (neighbours). Then the capacity model's ceiling (docs/capacity.md) beside each
 * measured rate: everything shares this machine's cores, so a run carries at most
 * min(web processes × 1000 / c_web, cores × 1000 / (c_web + c_worker + c_pg + c_client)) sends/s
 * (c: CPU ms per send; one Node event loop is at most one core). Both predictions use the
 * one-process run's costs: for the two-process run that is the check, a prediction made from
 * another run. Beside them the same ceilings on the cores the neighbours left during each run
 * (a shared machine's). `--quick`: 1 s runs.
 */
const quick = process.argv.includes("--quick");
const SECONDS = quick ? 1 : 5;
const AGENTS = 25;
const CORES = availableParallelism();

const dbServer = await startTestDatabaseServer();
const database = await createTestDatabase(dbServer);
const { deps, close } = createDeps(loadConfig({ DATABASE_URL: database.url, ...raisedLimits }), {
  poolSize: 2,
});
const services = [await startBenchService(database.url), await startBenchService(database.url)];

/** The processes whose CPU a run counts by name (with Postgres's, for this run's database). */
const roots = () => {
  const [a, b] = services.map((s) => s.pids());
  return { web1: a?.web, worker1: a?.worker, web2: b?.web, worker2: b?.worker };
};

/** CPU ms per send by process group, and what the machine's cores did meanwhile. */
interface Costs {
  web1: number;
  web2: number;
  worker1: number;
  worker2: number;
  postgres: number;
  client: number;
  /** The machine's busy CPU not counted above, per send (other sessions, the kernel's share). */
  neighbours: number;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** Runs `load` and returns its sends/s and CPU ms per send by process group. */
async function measured(load: () => Promise<autocannon.Result[]>) {
  const before = cpuSnapshot(roots(), database.name);
  const clientBefore = process.cpuUsage();
  const machineBefore = machineBusyMs();
  const startedAt = performance.now();
  const results = await load();
  const seconds = (performance.now() - startedAt) / 1000;
  const machine = machineBusyMs() - machineBefore;
  const client = process.cpuUsage(clientBefore);
  const spent = cpuSpent(before, cpuSnapshot(roots(), database.name));
  const sends = results.reduce((sum, run) => sum + run.requests.total, 0);
  const per = (ms: number) => round3(ms / Math.max(sends, 1));
  const clientMs = (client.user + client.system) / 1000;
  const ours =
    clientMs +
    ["web1", "web2", "worker1", "worker2", "postgres"].reduce((s, k) => s + (spent[k] ?? 0), 0);
  const costs: Costs = {
    web1: per(spent.web1 ?? 0),
    web2: per(spent.web2 ?? 0),
    worker1: per(spent.worker1 ?? 0),
    worker2: per(spent.worker2 ?? 0),
    postgres: per(spent.postgres ?? 0),
    client: per(clientMs),
    neighbours: per(Math.max(0, machine - ours)),
  };
  return {
    reqPerSec: Math.round(results.reduce((sum, run) => sum + run.requests.average, 0)),
    problems: results.reduce((sum, run) => sum + run.non2xx + run.errors, 0),
    costs,
    /** Cores the machine kept busy during the run, ours and the neighbours'. */
    machineCoresBusy: Math.round((machine / seconds / 1000) * 100) / 100,
    /** The cores the neighbours left this run (the machine's, less their busy share). */
    coresLeft: Math.round((CORES - Math.max(0, machine - ours) / seconds / 1000) * 100) / 100,
  };
}

/**
 * The model's ceiling in sends/s for `webProcesses` web processes, from one run's costs, on
 * `cores` cores (the machine's, or those its neighbours left during a run).
 */
function ceiling(costs: Costs, webProcesses: number, cores = CORES) {
  const web = costs.web1 + costs.web2;
  const total = web + costs.worker1 + costs.worker2 + costs.postgres + costs.client;
  const perProcess = (webProcesses * 1000) / web;
  const sharedCores = (cores * 1000) / total;
  return {
    sendsPerSec: Math.round(Math.min(perProcess, sharedCores)),
    bound: perProcess < sharedCores ? "web event loops" : "shared cores",
    perProcessBound: Math.round(perProcess),
    sharedCoresBound: Math.round(sharedCores),
  };
}

try {
  const contacts = await sendingContacts(deps, AGENTS);
  const sends = (url: string, connections: number, duration = SECONDS) =>
    autocannon({ url, connections, duration, requests: [sendsInTurn(contacts, "two")] });
  const [first, second] = services.map((s) => s.webUrl.replace("localhost", "127.0.0.1")) as [
    string,
    string,
  ];
  await Promise.all([sends(first, 4, 1), sends(second, 4, 1)]); // warm up both
  const one = await measured(async () => [await sends(first, 50)]);
  const two = await measured(() => Promise.all([sends(first, 25), sends(second, 25)]));
  const predictedOne = ceiling(one.costs, 1);
  const predictedTwo = ceiling(one.costs, 2);
  // The same on the cores the neighbours left in each run (a shared machine's).
  const leftOne = ceiling(one.costs, 1, one.coresLeft);
  const leftTwo = ceiling(one.costs, 2, two.coresLeft);
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  console.log(
    JSON.stringify(
      {
        postMessages: {
          oneProcessReqPerSec: one.reqPerSec,
          twoProcessesReqPerSec: two.reqPerSec,
          ratio: ratio(two.reqPerSec, one.reqPerSec),
          not2xx: one.problems + two.problems,
          cores: CORES,
          cpuMsPerSend: { oneProcess: one.costs, twoProcesses: two.costs },
          machineCoresBusy: {
            oneProcess: one.machineCoresBusy,
            twoProcesses: two.machineCoresBusy,
          },
          coresLeftByNeighbours: { oneProcess: one.coresLeft, twoProcesses: two.coresLeft },
          model: {
            oneProcess: {
              ...predictedOne,
              measuredOverPredicted: ratio(one.reqPerSec, predictedOne.sendsPerSec),
            },
            twoProcesses: {
              ...predictedTwo,
              measuredOverPredicted: ratio(two.reqPerSec, predictedTwo.sendsPerSec),
            },
          },
          modelOnCoresLeft: {
            oneProcess: {
              ...leftOne,
              measuredOverPredicted: ratio(one.reqPerSec, leftOne.sendsPerSec),
            },
            twoProcesses: {
              ...leftTwo,
              measuredOverPredicted: ratio(two.reqPerSec, leftTwo.sendsPerSec),
            },
          },
        },
      },
      null,
      2,
    ),
  );
  const ms = (n: number) => n.toFixed(2);
  console.log(
    [
      "",
      "| run | sends/s | web (1 + 2) | workers | Postgres | client | neighbours | CPU ms per send | model's ceiling (bound) | measured ÷ predicted | on the cores left | measured ÷ predicted |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|",
      ...(
        [
          ["one web process, 50 connections", one, predictedOne, leftOne],
          ["two web processes, 25 + 25", two, predictedTwo, leftTwo],
        ] as const
      ).map(([name, run, model, left]) => {
        const c = run.costs;
        const total = c.web1 + c.web2 + c.worker1 + c.worker2 + c.postgres + c.client;
        return `| ${name} | ${run.reqPerSec} | ${ms(c.web1)} + ${ms(c.web2)} | ${ms(c.worker1 + c.worker2)} | ${ms(c.postgres)} | ${ms(c.client)} | ${ms(c.neighbours)} | ${ms(total)} | ${model.sendsPerSec} (${model.bound}) | ${ratio(run.reqPerSec, model.sendsPerSec)} | ${left.sendsPerSec} (${run.coresLeft} cores, ${left.bound}) | ${ratio(run.reqPerSec, left.sendsPerSec)} |`;
      }),
      "",
      `(${CORES} cores; both ceilings from the one-process run's CPU per send.)`,
    ].join("\n"),
  );
} finally {
  await Promise.all(services.map((s) => s.stop()));
  await close();
  await dropDatabase(dbServer.adminUrl, database.name);
  await dbServer.stop();
}
