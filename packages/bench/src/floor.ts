import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import postgres from "postgres";

const floorDir = path.resolve(import.meta.dirname, "../floor");
const nextBin = path.resolve(import.meta.dirname, "../../../node_modules/next/dist/bin/next");
const buildId = path.join(floorDir, ".next-floor/BUILD_ID");

export interface FloorApp {
  url: string;
  /** GET of a route doing one `select 1` (the floor of `/me`, `/updates` and every row's second). */
  path: string;
  /** POST of a JSON body `{ to, type, content }` stored by one durable INSERT (the sends' floor). */
  insertPath: string;
  /** GET of one conversation's newest 50 message-shaped rows as JSON (history's floor). */
  historyPath: string;
  /** Its server process, for the CPU it spends per request. */
  pid: number | undefined;
  stop(): Promise<void>;
}

const newest = (target: string): number => {
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(target).reduce(
    (most, entry) => Math.max(most, newest(path.join(target, entry))),
    stat.mtimeMs,
  );
};

/** Text of a message's usual size (~80 characters), numbered: the floor's rows and the bench's. */
export const messageText = (i: number) =>
  `message ${i}: a line of about eighty characters, the size of a usual chat message.`;

/**
 * The floors every row is compared with: a bare Next.js app (packages/bench/floor: route
 * handlers doing one postgres.js `select 1`, one durable INSERT from a JSON body, or one 50-row
 * read of message-shaped rows) served by `next start` in production mode, as the service's web
 * process is. Built on first use or when its sources changed; its table made and 60 rows of one
 * conversation written here.
 */
export async function startFloorApp(databaseUrl: string): Promise<FloorApp> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`create table if not exists floor_messages (
      id bigint generated always as identity primary key,
      conversation text not null, sender text not null, type text not null, content text not null,
      created_at timestamptz not null default now(), updated_at timestamptz not null default now())`;
    await sql`create index if not exists floor_messages_conversation
      on floor_messages (conversation, id desc)`;
    await sql`insert into floor_messages (conversation, sender, type, content)
      select 'history', 'floor', 'text', 'message ' || i
        || ': a line of about eighty characters, the size of a usual chat message.'
      from generate_series(1, 60) i`;
  } finally {
    await sql.end();
  }
  const sources = ["app", "next.config.ts"].map((p) => path.join(floorDir, p));
  if (!existsSync(buildId) || sources.some((s) => newest(s) > statSync(buildId).mtimeMs)) {
    const build = spawnSync(process.execPath, [nextBin, "build"], {
      cwd: floorDir,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (build.status !== 0) throw new Error("building the floor app failed");
  }
  const port = await freePort();
  // BENCH_CPU_PROF_DIR=dir: the floor writes a V8 CPU profile there too, to set beside the
  // service's (what a call costs beyond the floor's, function by function).
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const args = [...profile, nextBin, "start", "-p", String(port), "-H", "127.0.0.1"];
  const child = spawn(process.execPath, args, {
    cwd: floorDir,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${url}/api/floor`, child);
  return {
    url,
    path: "/api/floor",
    insertPath: "/api/floor/insert",
    historyPath: "/api/floor/history",
    pid: child.pid,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function waitForAnswer(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the floor app exited (${child.exitCode})`);
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill("SIGKILL");
  throw new Error("the floor app did not answer within 60 s");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
