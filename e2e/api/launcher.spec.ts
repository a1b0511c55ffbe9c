import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createAgent, createDeps, createUser, loadConfig, mintAgentToken } from "@switchboard/core";
import { WebSocket } from "ws";
import { servicePort } from "../support/ports";
import { expect, test } from "../support/test";

/**
 * `npm start` as an operator runs it: its own embedded Postgres, in a terminal session of its
 * own (so a Ctrl-C reaches its whole process group, as a terminal's would).
 */
test.describe.configure({ mode: "serial" });
test.setTimeout(240_000);

const repoRoot = path.resolve(import.meta.dirname, "../..");
const port = servicePort("launcher");
const wsPort = port + 1;

/** The processes whose parent is `pid`, with their command lines (Linux /proc). */
function childrenOf(pid: number): { pid: number; cmd: string }[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
        return ppid === pid ? [{ pid: Number(entry), cmd }] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
}

/** Running (a zombie waiting for a parent to reap it has stopped: it holds nothing). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

let output = "";

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const healthy = (url: string) =>
  fetch(url).then(
    (r) => r.ok || undefined,
    () => undefined,
  );

/** `npm start` in a data directory of its own, in a process group (a terminal) of its own. */
function startLauncher() {
  const dataDir = mkdtempSync(path.join(tmpdir(), "switchboard-start-"));
  chmodSync(dataDir, 0o755); // as root, Postgres runs as its own user, which must reach it
  const { DATABASE_URL: _external, AUTH_SECRET: _a, SECRETS_KEY: _s, ...env } = process.env;
  output = "";
  const launcher: ChildProcess = spawn(process.execPath, ["apps/cli/bin/switchboard.js", "start"], {
    cwd: repoRoot,
    detached: true,
    env: {
      ...env,
      SWITCHBOARD_DATA_DIR: dataDir,
      NEXT_DIST_DIR: ".next-e2e",
      PORT: String(port),
      WS_PORT: String(wsPort),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  launcher.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  launcher.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => launcher.once("exit", resolve));
  return { dataDir, launcher, exited };
}

/** The launcher's service process (its own process group) and its web and worker processes. */
function serviceOf(launcher: ChildProcess) {
  const service = childrenOf(launcher.pid as number).find((p) => p.cmd.includes("start"));
  const find = (name: "web" | "worker") =>
    childrenOf(service?.pid as number).find((p) =>
      name === "web" ? p.cmd.startsWith("next-server") : p.cmd.includes("apps/worker/src/main.ts"),
    )?.pid;
  return { service, find };
}

test("a killed web or worker process is restarted; Ctrl-C then stops everything quietly", async () => {
  const { dataDir, launcher, exited } = startLauncher();
  try {
    await until("the service to be up", () => {
      if (launcher.exitCode !== null) throw new Error(`the launcher exited:\n${output}`);
      return output.includes("Switchboard is up") || undefined;
    });
    const { service, find } = serviceOf(launcher);
    const before = { web: find("web"), worker: find("worker") };
    expect(before.web).toBeDefined();
    expect(before.worker).toBeDefined();

    process.kill(before.worker as number, "SIGKILL");
    process.kill(before.web as number, "SIGKILL");
    const after = await until("both processes to be back", () => {
      const now = { web: find("web"), worker: find("worker") };
      return now.web && now.worker && now.web !== before.web && now.worker !== before.worker
        ? now
        : undefined;
    });
    await until("the web app to serve", () => healthy(`http://127.0.0.1:${port}/api/healthz`));
    await until("the worker to serve", () => healthy(`http://127.0.0.1:${wsPort}/healthz`));
    expect(output).toMatch(/the worker process exited \(signal SIGKILL\); restarting it in 1 s/);
    expect(output).toMatch(/the web process exited \(signal SIGKILL\); restarting it in 1 s/);

    // The new worker streams: an agent made in this instance's database connects and is greeted.
    const instance = JSON.parse(readFileSync(path.join(dataDir, "instance.json"), "utf8"));
    const { deps, close } = createDeps(loadConfig({ DATABASE_URL: instance.databaseUrl }), {
      poolSize: 1,
    });
    try {
      const owner = await createUser(deps, {});
      const agent = await createAgent(deps, { ownerId: owner.id, displayName: "Phoenix" });
      const { token } = await mintAgentToken(deps, agent.id);
      const hello = await new Promise<unknown>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/ws/agent/v1/stream?token=${token}`);
        ws.once("message", (data) => {
          resolve(JSON.parse(data.toString()));
          ws.close();
        });
        ws.once("error", reject);
      });
      expect(hello).toMatchObject({ type: "hello" });
    } finally {
      await close();
    }

    // Ctrl-C: the whole terminal group gets SIGINT. Everything stops, in order, without noise.
    process.kill(-(launcher.pid as number), "SIGINT");
    expect(await exited).toBe(0);
    for (const pid of [service?.pid, after.web, after.worker])
      expect(alive(pid as number)).toBe(false);
    expect(existsSync(path.join(dataDir, "pg", "postmaster.pid"))).toBe(false);
    const shutdownLog = output.slice(output.indexOf("Stopping Switchboard"));
    expect(shutdownLog).not.toMatch(/terminating connection|error|exited/i);
  } finally {
    if (launcher.exitCode === null) process.kill(-(launcher.pid as number), "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a SIGKILLed launcher leaves no web or worker process behind", async () => {
  const { dataDir, launcher } = startLauncher();
  try {
    await until("the service to be up", () => {
      if (launcher.exitCode !== null) throw new Error(`the launcher exited:\n${output}`);
      return output.includes("Switchboard is up") || undefined;
    });
    const { service, find } = serviceOf(launcher);
    const web = find("web");
    const worker = find("worker");
    expect(web).toBeDefined();
    expect(worker).toBeDefined();
    // Both launcher processes go at once, with no chance to stop their children. The service
    // (web's and worker's parent) first: killed second, it could hear the front process go (its
    // IPC channel closes) and stop them in order itself, which is not what this test is about.
    process.kill(service?.pid as number, "SIGKILL");
    process.kill(launcher.pid as number, "SIGKILL");
    const started = Date.now();
    await until("web and worker to stop", () =>
      alive(web as number) || alive(worker as number) ? undefined : true,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(output).toContain("the launcher");
  } finally {
    if (launcher.exitCode === null && launcher.signalCode === null)
      process.kill(-(launcher.pid as number), "SIGKILL");
    // The embedded Postgres was the launcher's too: stopped here (the next start would do it).
    const pidFile = path.join(dataDir, "pg", "postmaster.pid");
    if (existsSync(pidFile)) {
      const postgres = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
      process.kill(postgres, "SIGINT");
      await until("Postgres to stop", () => (alive(postgres) ? undefined : true));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});
