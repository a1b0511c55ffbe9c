import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";

export const repoRoot = path.resolve(import.meta.dirname, "../..");

/** A long-running process of the repository (an example agent, `switchboard listen`), its output as lines. */
export interface RunningProcess {
  lines: string[];
  /** Resolves with the first line (already printed or to come) that matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** Runs a command from the repository root in its own process group (npm's children stop with it). */
export function run(command: string, args: string[], env: Record<string, string>): RunningProcess {
  const child: ChildProcess = spawn(command, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const lines: string[] = [];
  let waiters: (() => void)[] = [];
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream as NodeJS.ReadableStream }).on("line", (line) => {
      lines.push(line);
      for (const wake of waiters) wake();
      waiters = [];
    });
  return {
    lines,
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = lines.find((line) => pattern.test(line));
        if (found) return found;
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(
            `no line matching ${pattern} (exit ${child.exitCode}):\n${lines.join("\n")}`,
          );
        await new Promise<void>((wake) => {
          waiters.push(wake);
          setTimeout(wake, 500);
        });
      }
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-(child.pid as number), "SIGTERM");
      const timer = setTimeout(() => process.kill(-(child.pid as number), "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
