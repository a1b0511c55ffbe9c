import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runCli } from "./command";
import { helpNotes, listCommands } from "./commands";

/**
 * One CLI invocation in this process, against `databaseUrl`: what main.ts runs for every command
 * but `start` and `mcp`, with stdout and stderr caught. Most tests use it: even built ahead of
 * time (decision 0065), a spawned CLI costs a Node start and core's import per call.
 */
export async function runInProcess(databaseUrl: string, args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, await listCommands(), {
    notes: helpNotes,
    databaseUrl,
    output: { out: (text) => (stdout += text), err: (text) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/**
 * The real program, as `npx switchboard` and `npm run -s cli` run it: spawn `node <cliBin> …`.
 * It runs the built CLI, rebuilt first when a source changed since (scripts/build.mjs).
 */
export const cliBin = fileURLToPath(new URL("../bin/switchboard.js", import.meta.url));

/** `runInProcess` as the tests read it: stdout parsed when it is JSON, stderr's error when it failed. */
export async function runInProcessJson(databaseUrl: string, args: string[]) {
  const { code, stdout, stderr } = await runInProcess(databaseUrl, args);
  return {
    code,
    out: code === 0 && stdout.startsWith("{") ? JSON.parse(stdout) : null,
    stdout,
    stderr,
    err: code === 0 ? undefined : JSON.parse(stderr),
  };
}

/** The real program, spawned as `npm run -s cli` does: its exit code and both streams. */
export async function spawnCliAt(databaseUrl: string, args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cliBin, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
