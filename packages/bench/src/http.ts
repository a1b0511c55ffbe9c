import { performance } from "node:perf_hooks";
import { createDeps, loadConfig, sendPersonMessage } from "@switchboard/core";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import autocannon from "autocannon";
import { raisedLimits, sendingContacts, sendsInTurn, startBenchService } from "./api-fixture";
import { messageText, startFloorApp } from "./floor";
import { expectToolSuccess, mcpCall, mcpSendsInTurn } from "./mcp-calls";
import { cpuSnapshot, cpuSpent } from "./process-cpu";

/**
 * `npm run bench`, HTTP part: the Agent API's hot calls against the service started the way
 * `npm start` starts it (limits raised, so every answer is a real 2xx), each compared with the
 * floor doing the same work (issue 41), a bare Next.js app of the bench's own (floor.ts) on the
 * same database server: one postgres.js `select 1` (for `/me`, `/updates`), one durable INSERT
 * from the send's JSON body (for sends), one 50-row read of message-shaped rows as JSON (for
 * history). Each round runs `select 1`, the call's own floor and the call in turn (two rounds
 * per row, one with `--quick`), so a busy machine moves all three. Each row is req/s and p50/p99
 * at 1 and at 50 connections, the ratio to its own floor beside the issue's target (met or
 * missed) and the ratio to `select 1`. `getMe` and `sendMessage` run again as MCP tool calls,
 * each compared with its REST row (target: at most 1.3× its time). Beside each row, the CPU time
 * per call the serving processes spent (web, worker, all of Postgres, read from /proc; its
 * floor's too): on a quiet machine, what a call costs beyond the floor's, by process, however
 * fast the machine is that moment. Loopback only. `--quick` runs each for 1 s instead of 6.
 * A bench reports, it does not gate: a missed target is marked, and the run still exits 0.
 */
const quick = process.argv.includes("--quick");
/**
 * `--only=messages` measures just the calls whose name holds that text (and skips the wake);
 * `--only=GET /me,MCP getMe`, those holding any of the texts.
 */
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const SECONDS = quick ? 1 : 6;
const ROUNDS = quick ? 1 : 2;
const AGENTS = 25;
const CONNECTIONS = [1, 50];

const dbServer = await startTestDatabaseServer();
const database = await createTestDatabase(dbServer);
const { deps, close } = createDeps(loadConfig({ DATABASE_URL: database.url, ...raisedLimits }), {
  poolSize: 4,
});
const service = await startBenchService(database.url);
const base = service.webUrl.replace("localhost", "127.0.0.1");
const floorApp = await startFloorApp(database.url);

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Requests answered, and the CPU time the serving processes spent meanwhile, in ms. */
  requests: number;
  cpuMs: Record<string, number>;
}

type Request = autocannon.Options["requests"] extends (infer R)[] | undefined ? R : never;

/** The floor app's routes: each does the database work of some of the calls, and nothing else. */
type FloorName = "select 1" | "durable insert" | "50-row read";

interface Call {
  name: string;
  request: Request;
  /** The floor doing this call's work: its ratio is the one the target is for. */
  floor: FloorName;
  /** Issue 41's targets, × its floor's req/s at 1 and at 50 connections. */
  target?: { at1: number; at50: number };
  /** For an MCP call, the REST call whose time it is compared with. */
  rest?: string;
}

/** The service's processes, or the floor's, whose CPU a run counts (with all of Postgres's). */
const serviceProcesses = () => service.pids();
const floorProcesses = () => ({ web: floorApp.pid });

/** A row of CPU per call: the service's processes and Postgres, beside the floor's. */
function cpuRow(
  name: string,
  connections: number,
  run: Run,
  floor: Run,
  floorName: FloorName,
): string {
  const per = (r: Run, process: string) => (r.cpuMs[process] ?? 0) / Math.max(r.requests, 1);
  const service = per(run, "web") + per(run, "worker") + per(run, "postgres");
  const floorTotal = per(floor, "web") + per(floor, "postgres");
  const ms = (n: number) => n.toFixed(3);
  return `| ${name} | ${connections} | ${ms(per(run, "web"))} | ${ms(per(run, "worker"))} | ${ms(per(run, "postgres"))} | ${ms(service)} | ${floorName} | ${ms(per(floor, "web"))} + ${ms(per(floor, "postgres"))} | ${ms(service - floorTotal)} |`;
}

async function load(
  connections: number,
  request: Request,
  url = base,
  processes: () => Record<string, number | undefined> = serviceProcesses,
): Promise<Run> {
  const before = cpuSnapshot(processes());
  const result = await autocannon({
    url,
    connections,
    duration: SECONDS,
    requests: [request],
  });
  const after = cpuSnapshot(processes());
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
    cpuMs: cpuSpent(before, after),
  };
}

try {
  const contacts = await sendingContacts(deps, AGENTS);
  const first = contacts[0] as (typeof contacts)[number];
  // History to page through, and a cursor with nothing after it.
  for (let i = 0; i < 60; i++)
    await sendPersonMessage(deps, first.person.id, first.agent.id, {
      type: "text",
      content: messageText(i),
    });
  const latest = (await (
    await fetch(`${base}/api/agent/v1/updates?afterSeq=0&limit=100`, {
      headers: { Authorization: first.auth },
    })
  ).json()) as { nextSeq: number };

  const sends = `POST /messages (${AGENTS} agents)`;
  const allCalls: Call[] = [
    // Not an Agent API call: what the service's Next app adds to every request before any of the
    // API's own work (its config, the HTTP edge, instrumentation), for the gap's breakdown.
    {
      name: "GET /api/healthz (one select 1)",
      request: { method: "GET", path: "/api/healthz" },
      floor: "select 1",
    },
    {
      name: "GET /me",
      request: { method: "GET", path: "/api/agent/v1/me", headers: { authorization: first.auth } },
      floor: "select 1",
      target: { at1: 0.85, at50: 0.85 },
    },
    {
      name: "MCP getMe",
      request: mcpCall(first.auth, "getMe"),
      rest: "GET /me",
      floor: "select 1",
    },
    {
      name: sends,
      request: sendsInTurn(contacts, "benchmark"),
      floor: "durable insert",
      target: { at1: 0.8, at50: 0.85 },
    },
    {
      name: `MCP sendMessage (${AGENTS} agents)`,
      request: mcpSendsInTurn(contacts, "benchmark"),
      rest: sends,
      floor: "durable insert",
    },
    {
      name: "GET /updates (nothing new)",
      request: {
        method: "GET",
        path: `/api/agent/v1/updates?afterSeq=${latest.nextSeq}&wait=0`,
        headers: { authorization: first.auth },
      },
      floor: "select 1",
      target: { at1: 0.85, at50: 0.85 },
    },
    {
      name: "history, limit=50",
      request: {
        method: "GET",
        path: `/api/agent/v1/conversations/${first.conversationId}/messages?limit=50`,
        headers: { authorization: first.auth },
      },
      floor: "50-row read",
      target: { at1: 0.75, at50: 0.75 },
    },
  ];
  const calls = allCalls.filter((call) => !only || only.some((text) => call.name.includes(text)));
  // The floors: the same work as a call, done by a bare Next.js route handler (floor.ts).
  const floorRequests: Record<FloorName, Request> = {
    "select 1": { method: "GET", path: floorApp.path },
    // The sends' own bodies, posted to the floor's INSERT (the floor ignores the authorization).
    "durable insert": { ...sendsInTurn(contacts, "benchmark"), path: floorApp.insertPath },
    "50-row read": { method: "GET", path: floorApp.historyPath },
  };
  const floorLoad = (connections: number, floor: FloorName) =>
    load(connections, floorRequests[floor], floorApp.url, floorProcesses);
  /**
   * Alternating rounds of `select 1`, the call's own floor (when another) and the call; req/s
   * averaged, latencies of the last round, CPU and requests summed.
   */
  const measure = async (connections: number, call: Call) => {
    const selects: Run[] = [];
    const floors: Run[] = [];
    const runs: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      selects.push(await floorLoad(connections, "select 1"));
      if (call.floor !== "select 1") floors.push(await floorLoad(connections, call.floor));
      runs.push(await load(connections, call.request));
    }
    const merged = (all: Run[]): Run => ({
      ...(all.at(-1) as Run),
      rps: Math.round(all.reduce((sum, r) => sum + r.rps, 0) / all.length),
      non2xx: all.reduce((sum, r) => sum + r.non2xx, 0),
      errors: all.reduce((sum, r) => sum + r.errors, 0),
      requests: all.reduce((sum, r) => sum + r.requests, 0),
      cpuMs: all.reduce<Record<string, number>>((sum, r) => {
        for (const [name, ms] of Object.entries(r.cpuMs)) sum[name] = (sum[name] ?? 0) + ms;
        return sum;
      }, {}),
    });
    const select = merged(selects);
    return { select, floor: floors.length > 0 ? merged(floors) : select, run: merged(runs) };
  };

  for (const call of calls) if (call.rest) await expectToolSuccess(base, call.request);
  // Warm up every route for a few seconds: Next compiles and caches on first use, and V8
  // optimises a path only after thousands of calls (with 200 calls each, the first rows at one
  // connection read 1.00-1.39x in two runs of the same code).
  const warmSeconds = quick ? 1 : 3;
  for (const request of Object.values(floorRequests))
    await autocannon({
      url: floorApp.url,
      connections: 4,
      duration: warmSeconds,
      requests: [request],
    });
  for (const call of calls)
    await autocannon({
      url: base,
      connections: 4,
      duration: warmSeconds,
      requests: [call.request],
    });

  const rows: string[] = [];
  const cpuRows: string[] = [];
  const missed: string[] = [];
  const runs = new Map<string, Run>();
  const ratio = (a: number, b: number) => (b === 0 ? "—" : (a / b).toFixed(2));
  for (const connections of CONNECTIONS) {
    for (const call of calls) {
      const { select, floor, run } = await measure(connections, call);
      runs.set(`${connections} ${call.name}`, run);
      const problems = run.non2xx + run.errors + floor.non2xx + floor.errors;
      const wanted = call.target && (connections === 1 ? call.target.at1 : call.target.at50);
      const met = wanted === undefined ? "" : run.rps / Math.max(floor.rps, 1) >= wanted;
      if (met === false) missed.push(`${call.name} @${connections}`);
      rows.push(
        `| ${call.name} | ${connections} | ${run.rps} | ${run.p50} | ${run.p99} | ${call.floor} | ${floor.rps} | ${ratio(run.rps, floor.rps)}${problems ? ` (${problems} not 2xx!)` : ""} | ${wanted ?? ""} | ${met === "" ? "" : met ? "met" : "**missed**"} | ${select.rps} | ${ratio(run.rps, select.rps)} | ${ratio(floor.rps, select.rps)} |`,
      );
      console.error(rows.at(-1));
      cpuRows.push(cpuRow(call.name, connections, run, floor, call.floor));
    }
  }
  // Long-poll wake: a GET /updates parked in the web process, an event committed by this
  // process (as another web process or the worker would), the answer's arrival.
  const wakes: number[] = [];
  let cursor = latest.nextSeq;
  const wakeSamples = only ? 0 : quick ? 50 : 200;
  for (let i = 0; i < (only ? 0 : wakeSamples + 10); i++) {
    const answer = fetch(`${base}/api/agent/v1/updates?afterSeq=${cursor}&wait=30`, {
      headers: { Authorization: first.auth },
    }).then(async (response) => {
      const arrived = performance.now();
      return { arrived, page: (await response.json()) as { nextSeq: number } };
    });
    await new Promise((resolve) => setTimeout(resolve, 30)); // parked by now
    await sendPersonMessage(deps, first.person.id, first.agent.id, {
      type: "text",
      content: `wake ${i}`,
    });
    const committed = performance.now();
    const { arrived, page } = await answer;
    cursor = page.nextSeq;
    if (i >= 10) wakes.push(arrived - committed);
  }
  // Time per call at the same concurrency is 1 / req/s: MCP's time over REST's is REST rps / MCP rps.
  const versusRest = calls.flatMap((call) => {
    const rest = calls.find((other) => other.name === call.rest);
    if (!rest) return [];
    return CONNECTIONS.map((connections) => {
      const mcp = runs.get(`${connections} ${call.name}`) as Run;
      const direct = runs.get(`${connections} ${rest.name}`) as Run;
      const times = direct.rps / Math.max(mcp.rps, 1);
      return `| ${call.name} | ${connections} | ${times.toFixed(2)}× | ${mcp.p50} / ${direct.p50} | ${times <= 1.3 ? "ok" : "over 1.3×!"} |`;
    });
  });
  wakes.sort((a, b) => a - b);
  const wakeAt = (q: number) =>
    Math.round((wakes[Math.floor(q * (wakes.length - 1))] ?? 0) * 100) / 100;

  console.log(
    [
      `HTTP, ${ROUNDS} × ${SECONDS} s per row, alternating with its own floor and with select 1 (bare Next.js route handlers with postgres.js: one select 1; one durable INSERT of the send's JSON body; one 50-row read of one conversation as JSON)`,
      "",
      "| call | connections | req/s | p50 ms | p99 ms | its floor | floor req/s | × its floor | target (issue 41) | | select 1 req/s | × select 1 | its floor × select 1 |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
      ...rows,
      "",
      missed.length === 0
        ? "Every target met (× its own floor, req/s at the same connections)."
        : `Targets missed: ${missed.join(", ")}.`,
      "",
      "CPU per call (ms): what the serving processes spent while the row ran, over the requests it answered (/proc; all of Postgres's processes), beside its own floor's",
      "",
      "| call | connections | web | worker | Postgres | total | its floor | floor: web + Postgres | beyond the floor |",
      "|---|---|---|---|---|---|---|---|---|",
      ...cpuRows,
      ...(versusRest.length === 0
        ? []
        : [
            "",
            "MCP against REST (time per call = 1 / req/s at the same connections; target ≤ 1.3×)",
            "",
            "| MCP call | connections | × REST time | p50 ms MCP / REST | |",
            "|---|---|---|---|---|",
            ...versusRest,
          ]),
      ...(wakes.length === 0
        ? []
        : [
            "",
            `Long-poll wake (event committed in another process → parked GET /updates answered), ${wakes.length} samples: p50 ${wakeAt(0.5)} ms, p99 ${wakeAt(0.99)} ms, max ${wakeAt(1)} ms`,
          ]),
    ].join("\n"),
  );
} finally {
  await floorApp.stop();
  await service.stop();
  await close();
  await dropDatabase(dbServer.adminUrl, database.name);
  await dbServer.stop();
}
