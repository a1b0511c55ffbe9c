import { fileURLToPath } from "node:url";
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
