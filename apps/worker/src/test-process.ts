import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TEST_KEYS } from "@switchboard/core/testing";

/**
 * The real worker process (src/main.ts, as `npm run start:worker` runs it) on a free port, for
 * tests that need a process of its own: to reset its sockets, or to signal it. Resolves once it
 * logs the port it listens on (its start line, at info level).
 */
export function startWorkerProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: {
      // biome-ignore lint/style/noProcessEnv: a test helper; the child inherits the test run's environment.
      ...process.env,
      ...TEST_KEYS,
      ...env,
      WS_PORT: "0",
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const port = /"port":(\d+)/.exec(seen)?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
    child.once("exit", (code) => reject(new Error(`worker exited with ${code}: ${seen}`)));
  });
}
