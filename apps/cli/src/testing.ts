import { runCli } from "./command";
import { commands, helpNotes } from "./commands";

/**
 * One CLI invocation in this process, against `databaseUrl`: what main.ts runs for every command
 * but `start` and `mcp`, with stdout and stderr caught. Tests use it because spawning Node for
 * each call cost about two seconds of CPU; a few tests still spawn the real program.
 */
export async function runInProcess(databaseUrl: string, args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, commands, {
    notes: helpNotes,
    databaseUrl,
    output: { out: (text) => (stdout += text), err: (text) => (stderr += text) },
  });
  return { code, stdout, stderr };
}
