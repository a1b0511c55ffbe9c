import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import type { AgentEvent } from "@switchboard/contract";
import { TEST_KEYS } from "@switchboard/core/testing";
import { withDatabase } from "@switchboard/db";
import { migrateDatabase } from "@switchboard/db/migrate";
import postgres from "postgres";
import { WebSocket } from "ws";
import { freePort, sleep } from "./cluster";
import { type Receiver, startReceiver } from "./receivers";

/**
 * `npm run chaos -- --upgrade [ref]`: an upgrade that keeps serving. The previous release (the
 * ref given, else $SWITCHBOARD_PREVIOUS_RELEASE, else the newest `v*` tag) runs from a git
 * worktree: two web processes and two workers on a fresh database of DATABASE_URL's server (or
 * of an embedded Postgres of its own when unset), with people writing through its own core and
 * agents sending, long-polling, streaming and taking webhooks. While it serves, this version's migrations run; then each process in turn is
 * replaced by this version's (the new one started and ready, then the old one sent SIGTERM).
 * Passes when no request failed except 503s that were retried, and every send answered 201 and
 * every committed event reached every reader.
 */
const repoRoot = path.resolve(import.meta.dirname, "../../..");
// biome-ignore lint/style/noProcessEnv: child processes inherit this one's environment.
const inherited = process.env;

type Role = "web" | "worker";
interface Proc {
  role: Role;
  version: "old" | "new";
  port: number;
  stop(): Promise<void>;
}

export async function runUpgrade(options: {
  ref?: string;
  log: (line: string) => void;
  logFile: string;
}): Promise<boolean> {
  const { log } = options;
  const ref = options.ref ?? previousRelease();
  const worktree = prepareWorktree(ref, log);
  // biome-ignore lint/style/noProcessEnv: the harness picks its Postgres like the tests do.
  const ownServer = process.env.DATABASE_URL ? null : await startOwnPostgres(log);
  // biome-ignore lint/style/noProcessEnv: as above.
  const serverUrl = ownServer?.url ?? (process.env.DATABASE_URL as string);
  const name = `sb_upgrade_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const databaseUrl = withDatabase(serverUrl, name);
  const output = openSync(options.logFile, "a");
  const env = {
    // Both releases are given the keys: the service never makes its own (decision 0063).
    ...TEST_KEYS,
    DATABASE_URL: databaseUrl,
    WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
    WEBHOOK_RETRY_SCHEDULE_S: "1,1,2,2,3,3,5",
    LIMIT_REQUESTS_PER_MIN: "100000000",
    LIMIT_MESSAGES_PER_MIN: "100000000",
    LIMIT_PER_RECIPIENT_PER_MIN: "100000000",
    LIMIT_DAILY_MESSAGES: "100000000",
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    AUTH_TRUST_HOST: "true",
  };
  const procs: Proc[] = [];
  const receivers: Receiver[] = [];
  let loader: ReturnType<typeof startLoader> | undefined;
  const failures: string[] = [];
  let retried503 = 0;
  /** Sends stop first; readers keep reading until they have caught up, then stop. */
  let sending = true;
  let stopping = false;
  try {
    run(process.execPath, ["--import", "tsx", "packages/db/src/migrate-main.ts"], worktree, env);
    log(`upgrade: ${ref} migrated a fresh database; starting its processes`);
    for (const role of ["web", "worker", "web", "worker"] as Role[])
      procs.push(await startProc(worktree, role, "old", env, output));
    const webs = () =>
      procs.filter((p) => p.role === "web").map((p) => `http://127.0.0.1:${p.port}`);
    const workers = () =>
      procs.filter((p) => p.role === "worker").map((p) => `ws://127.0.0.1:${p.port}`);

    // Data and people's traffic through the old version's own core.
    loader = startLoader(worktree, env);
    const world = await loader.ready;
    const agents = world.agents.map((agent) => ({
      ...agent,
      polled: [] as AgentEvent[],
      streamed: [] as AgentEvent[],
      pollSeq: 0,
      streamSeq: 0,
    }));

    /** An Agent API call; 503s and refused connections are retried on another web process. */
    const call = async (auth: string, method: string, url: string, body?: unknown) => {
      for (let attempt = 0; ; attempt++) {
        const web = webs()[attempt % webs().length] as string;
        try {
          const response = await fetch(`${web}/api/agent/v1${url}`, {
            method,
            headers: { authorization: auth, "content-type": "application/json" },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          const text = await response.text();
          if (response.status === 503 && attempt < 20) {
            retried503++;
            await sleep(200);
            continue;
          }
          if (!response.ok)
            failures.push(`${method} ${url} ${response.status} ${text.slice(0, 200)}`);
          return { status: response.status, body: text ? JSON.parse(text) : null };
        } catch (error) {
          // A connection refused before any byte went out is safe to retry elsewhere.
          const code = (error as { cause?: { code?: string } }).cause?.code;
          if (code === "ECONNREFUSED" && attempt < 20) {
            retried503++;
            await sleep(200);
            continue;
          }
          failures.push(`${method} ${url} ${String(error)} ${code ?? ""}`);
          return { status: 0, body: null };
        }
      }
    };
    for (const agent of agents) {
      const receiver = await startReceiver("ok", () => 1);
      receivers.push(receiver);
      const answer = await call(agent.auth, "PUT", "/webhook", { url: receiver.url });
      receiver.secret = answer.body.secret;
    }
    // Events before this (the contacts' own) came before any webhook: none is owed to one.
    const webhookFrom = new Map<string, number>();
    {
      const read = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      for (const agent of agents) {
        const [row] = await read`select coalesce(max(seq), 0)::int as seq from events
                                 where agent_id = ${agent.id}`;
        webhookFrom.set(agent.id, row?.seq ?? 0);
      }
      await read.end();
    }
    loader.go();
    const sent: { conversationId: string; id: string }[] = [];
    const agentTraffic = agents.map(async (agent, i) => {
      for (let n = 0; sending; n++) {
        const person = agent.people[n % agent.people.length] as (typeof agent.people)[number];
        const answer = await call(agent.auth, "POST", "/messages", {
          conversationId: person.conversationId,
          type: "text",
          content: `u${i}-${n}`,
        });
        if (answer.status === 201)
          sent.push({ conversationId: person.conversationId, id: answer.body.message.id });
        await sleep(400);
      }
    });
    const polls = agents.map(async (agent) => {
      while (!stopping) {
        const answer = await call(agent.auth, "GET", `/updates?afterSeq=${agent.pollSeq}&wait=3`);
        if (answer.status !== 200) continue;
        agent.polled.push(...answer.body.events);
        agent.pollSeq = answer.body.nextSeq;
      }
    });
    const sockets = new Set<WebSocket>();
    const stream = (agent: (typeof agents)[number], attempt = 0) => {
      if (stopping) return;
      const list = workers();
      const ws = new WebSocket(
        `${list[attempt % list.length]}/ws/agent/v1/stream?afterSeq=${agent.streamSeq}`,
        { headers: { authorization: agent.auth } },
      );
      sockets.add(ws);
      ws.on("message", (data) => {
        const frame = JSON.parse(String(data));
        if (frame.type !== "event") return;
        agent.streamed.push(frame.event);
        agent.streamSeq = frame.event.seq;
      });
      ws.on("error", () => {});
      ws.on("close", (code) => {
        sockets.delete(ws);
        if (stopping) return;
        // 1001: a worker that is stopping; 1006 before open: one that has stopped.
        if (code !== 1001 && code !== 1006) failures.push(`stream closed ${code}`);
        setTimeout(() => stream(agent, attempt + 1), 100);
      });
    };
    for (const agent of agents) stream(agent);

    await sleep(8000);
    log("upgrade: running the new version's migrations while the old one serves");
    await migrateDatabase(databaseUrl);
    await sleep(5000);
    for (const old of [...procs]) {
      const replacement = await startProc(repoRoot, old.role, "new", env, output);
      procs.push(replacement);
      procs.splice(procs.indexOf(old), 1);
      await old.stop();
      log(
        `upgrade: ${old.role} on :${old.port} replaced by the new version on :${replacement.port}`,
      );
      await sleep(4000);
    }
    await sleep(5000);
    sending = false;
    await Promise.all(agentTraffic);
    const personSent = await loader.stop();

    // What was answered is stored once; what was committed reached every reader.
    const check = await postgres(databaseUrl, { max: 1 });
    try {
      // Every event is committed now: the long-polls and streams read until they have it all.
      const readersDeadline = Date.now() + 60_000;
      for (const agent of agents) {
        const [last] = await check`select coalesce(max(seq), 0)::int as seq from events
                                   where agent_id = ${agent.id}`;
        while (
          Date.now() < readersDeadline &&
          (agent.pollSeq < (last?.seq ?? 0) || agent.streamSeq < (last?.seq ?? 0))
        )
          await sleep(200);
      }
      stopping = true;
      await Promise.all(polls);
      for (const ws of sockets) ws.close();

      for (const message of [...sent, ...personSent]) {
        const rows = await check`select count(*)::int as n from messages where id = ${message.id}`;
        if (rows[0]?.n !== 1) failures.push(`message ${message.id} stored ${rows[0]?.n} times`);
      }
      const deadline = Date.now() + 60_000;
      for (const [i, agent] of agents.entries()) {
        const committed =
          await check`select id, seq from events where agent_id = ${agent.id} order by seq`;
        const ids = committed.map((row) => row.id as string);
        const owed = committed
          .filter((row) => Number(row.seq) > (webhookFrom.get(agent.id) ?? 0))
          .map((row) => row.id as string);
        const receiver = receivers[i] as Receiver;
        const undelivered = () => owed.filter((id) => !receiver.arrivals.some((a) => a.id === id));
        while (Date.now() < deadline && undelivered().length > 0) await sleep(500);
        const lost = (seen: { id: string }[]) =>
          ids.filter((id) => !seen.some((e) => e.id === id)).length;
        if (lost(agent.polled))
          failures.push(`agent ${i}: long-poll missed ${lost(agent.polled)} events`);
        if (lost(agent.streamed))
          failures.push(`agent ${i}: stream missed ${lost(agent.streamed)} events`);
        const missing = undelivered();
        if (missing.length > 0) {
          const rows = await check`select event_id, status, attempts, error, next_attempt_at
                                   from webhook_deliveries where event_id in ${check(missing)}`;
          failures.push(
            `agent ${i}: webhook missed ${missing.length} events (${JSON.stringify(rows).slice(0, 400)})`,
          );
        }
        if (receiver.arrivals.some((a) => !a.signed))
          failures.push(`agent ${i}: a delivery's signature failed`);
      }
    } finally {
      await check.end();
    }
    log(
      `upgrade: ${sent.length} agent sends and ${personSent.length} person sends answered, ${retried503} requests retried (503 or refused)`,
    );
    for (const failure of failures.slice(0, 20)) log(`upgrade: FAIL ${failure}`);
    log(failures.length ? "upgrade: CHECKS FAILED" : "upgrade: all checks passed");
    return failures.length === 0;
  } finally {
    stopping = true;
    await loader?.stop().catch(() => []);
    await Promise.all(procs.map((p) => p.stop()));
    await Promise.all(receivers.map((r) => r.close()));
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
    await ownServer?.stop();
  }
}

/** The ref of the release before this one. */
function previousRelease(): string {
  // biome-ignore lint/style/noProcessEnv: which release to upgrade from.
  const fromEnv = process.env.SWITCHBOARD_PREVIOUS_RELEASE;
  if (fromEnv) return fromEnv;
  const tag = spawnSync("git", ["describe", "--tags", "--abbrev=0", "--match", "v*"], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  if (tag.status !== 0)
    throw new Error(
      "no previous release: tag one (git tag v0.2.0 <commit>) or set SWITCHBOARD_PREVIOUS_RELEASE",
    );
  return tag.stdout.trim();
}

/**
 * A worktree of `ref` outside this one, with node_modules: a hard-linked copy of this tree's when
 * every package the ref's lockfile names is installed here at the same version (the common
 * case), else `npm ci`. Its web app is built once.
 */
function prepareWorktree(ref: string, log: (line: string) => void): string {
  const sha = execFileSync("git", ["rev-parse", `${ref}^{commit}`], {
    cwd: repoRoot,
    encoding: "utf8",
  }).trim();
  const dir = path.join(tmpdir(), `switchboard-release-${sha.slice(0, 10)}`);
  if (!existsSync(dir)) {
    log(`upgrade: git worktree of ${ref} (${sha.slice(0, 10)}) in ${dir}`);
    run("git", ["worktree", "add", "--detach", dir, sha], repoRoot, {});
  }
  if (!existsSync(path.join(dir, "node_modules"))) {
    const lock = JSON.parse(readFileSync(path.join(dir, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string; link?: boolean }>;
    };
    const same = Object.entries(lock.packages).every(([where, entry]) => {
      if (!where.startsWith("node_modules/") || entry.link || !entry.version) return true;
      const manifest = path.join(repoRoot, where, "package.json");
      return (
        existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).version === entry.version
      );
    });
    if (same) {
      log("upgrade: the release's packages are installed here; hard-linking node_modules");
      run(
        "cp",
        ["-al", path.join(repoRoot, "node_modules"), path.join(dir, "node_modules")],
        repoRoot,
        {},
      );
    } else {
      log("upgrade: the release's lockfile differs; npm ci in the worktree");
      run("npm", ["ci", "--no-audit", "--no-fund"], dir, {});
    }
  }
  if (!existsSync(path.join(dir, "apps/web/.next/BUILD_ID"))) {
    log("upgrade: building the release's web app");
    run(
      process.execPath,
      [path.join(dir, "node_modules/next/dist/bin/next"), "build"],
      path.join(dir, "apps/web"),
      {
        NEXT_TELEMETRY_DISABLED: "1",
        NEXT_DIST_DIR: ".next",
      },
    );
  }
  return dir;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>) {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...inherited, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed in ${cwd}`);
}

/** A web or worker process of the tree at `root`, started and ready. */
async function startProc(
  root: string,
  role: Role,
  version: "old" | "new",
  env: Record<string, string>,
  output: number,
): Promise<Proc> {
  const port = await freePort();
  // biome-ignore lint/style/noProcessEnv: the new version's build dir, as the launcher uses it.
  const distDir = version === "new" ? (process.env.NEXT_DIST_DIR ?? ".next") : ".next";
  const child =
    role === "web"
      ? spawn(
          process.execPath,
          [
            "--import",
            path.join(root, "apps/web/http-edge.mjs"),
            path.join(root, "node_modules/next/dist/bin/next"),
            "start",
            "-p",
            String(port),
          ],
          {
            cwd: path.join(root, "apps/web"),
            env: { ...inherited, ...env, NEXT_DIST_DIR: distDir, PORT: String(port) },
            stdio: ["ignore", output, output],
          },
        )
      : spawn(process.execPath, ["--import", "tsx", path.join(root, "apps/worker/src/main.ts")], {
          cwd: root,
          env: { ...inherited, ...env, WS_PORT: String(port) },
          stdio: ["ignore", output, output],
        });
  const ready =
    role === "web" ? `http://127.0.0.1:${port}/api/readyz` : `http://127.0.0.1:${port}/readyz`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${version} ${role} exited at start`);
    const ok = await fetch(ready).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the ${version} ${role} was not ready in 120 s`);
    await sleep(200);
  }
  return {
    role,
    version,
    port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

interface LoaderWorld {
  agents: { id: string; auth: string; people: { id: string; conversationId: string }[] }[];
}

/**
 * The old version's core, in a process of its own run from the worktree: makes the agents and
 * people, then has every person write to their agent twice a second until told to stop, and
 * reports each message it stored.
 */
function startLoader(root: string, env: Record<string, string>) {
  const script = path.join(root, "packages/core/upgrade-loader.mts");
  writeFileSync(
    script,
    `import { addContact, createAgent, createDeps, createUser, loadConfig, mintAgentToken, sendPersonMessage } from "@switchboard/core";
const { deps, close } = createDeps(loadConfig(), { poolSize: 2 });
const scopes = ["messages:read", "messages:write"];
const owner = await createUser(deps, { displayName: "Upgrade owner" });
const agents = [];
for (let i = 0; i < 3; i++) {
  const agent = await createAgent(deps, { ownerId: owner.id, displayName: "Upgrade " + i, requestedScopes: scopes });
  const { token } = await mintAgentToken(deps, agent.id);
  const people = [];
  for (let p = 0; p < 2; p++) {
    const person = await createUser(deps, { displayName: "Person " + i + "." + p });
    const { conversationId } = await addContact(deps, person.id, agent.id, scopes);
    people.push({ id: person.id, conversationId });
  }
  agents.push({ id: agent.id, auth: "Bearer agent:" + token, people });
}
console.log(JSON.stringify({ world: { agents } }));
// "go" once the agents' webhooks are set (so every event has a delivery), "stop" at the end.
let stopping = false;
let go = () => {};
const started = new Promise((resolve) => { go = resolve; });
process.stdin.setEncoding("utf8").on("data", (data) => {
  if (data.includes("go")) go();
  if (data.includes("stop")) { stopping = true; go(); }
});
await started;
await Promise.all(agents.flatMap((agent) => agent.people.map(async (person) => {
  for (let n = 0; !stopping; n++) {
    try {
      const { message, conversationId } = await sendPersonMessage(deps, person.id, agent.id, { type: "text", content: "p" + n });
      console.log(JSON.stringify({ sent: { id: message.id, conversationId } }));
    } catch (error) {
      console.log(JSON.stringify({ failed: String(error) }));
    }
    await new Promise((r) => setTimeout(r, 500));
  }
})));
await close();
`,
  );
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: path.join(root, "packages/core"),
    env: { ...inherited, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const sent: { id: string; conversationId: string }[] = [];
  const failed: string[] = [];
  let resolveWorld: (world: LoaderWorld) => void = () => {};
  const ready = new Promise<LoaderWorld>((resolve, reject) => {
    resolveWorld = resolve;
    child.once("exit", (code) => reject(new Error(`the loader exited (${code})`)));
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.world) resolveWorld(message.world);
    if (message.sent) sent.push(message.sent);
    if (message.failed) failed.push(message.failed);
  });
  return {
    ready,
    failed,
    /** Starts the people's sends. */
    go: () => child.stdin.write("go\n"),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        // Ended, not just written: an open stdin would keep the loader alive once it is done.
        child.stdin.end("stop\n");
        await exited;
      }
      if (failed.length) throw new Error(`person sends failed: ${failed.slice(0, 3).join("; ")}`);
      return sent;
    },
  };
}

/** A Postgres of the run's own (embedded) when DATABASE_URL names none. */
async function startOwnPostgres(log: (line: string) => void) {
  const dir = mkdtempSync(path.join(tmpdir(), "switchboard-upgrade-pg-"));
  chmodSync(dir, 0o755); // Postgres runs as its own user when we are root
  const { startEmbeddedPostgres } = await import("@switchboard/db/embedded");
  const server = await startEmbeddedPostgres({ dir: path.join(dir, "data") });
  log(`upgrade: embedded Postgres on port ${server.port}`);
  return server;
}
