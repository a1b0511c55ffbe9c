import { type CommandSummary, helpNotes, listCommands } from "./commands";
import { asksForHelp, usageOf } from "./usage";

/** Every command's name, usage, flags and group, defined by scripts/build.mjs in the built CLI. */
declare const BUILT_COMMANDS: CommandSummary[] | undefined;

// Only what the command asked for is imported (decision 0065): help loads no command group and
// not core, a command loads core and its own group.
// The CLI serves no metrics: core, imported below, then never loads prom-client (issue 41). The
// key is core's NO_METRICS, spelled out so that help still imports nothing of core.
(globalThis as Record<string, unknown>).__switchboardNoMetrics = true;
const argv = process.argv.slice(2);
if (argv[0] === "start") {
  // Long-running, so outside the one-JSON-object contract of the other commands.
  const { runStart } = await import("./start/start");
  await runStart(argv.slice(1));
} else if (argv[0] === "mcp") {
  // Long-running too: MCP over stdio, forwarded to the running service.
  process.exitCode = await (await import("./commands/mcp")).runMcp(argv.slice(1));
} else {
  const commands = await listCommands(
    typeof BUILT_COMMANDS === "undefined" ? undefined : BUILT_COMMANDS,
  );
  if (asksForHelp(argv)) process.stdout.write(`${usageOf(commands, helpNotes)}\n`);
  else {
    const { runCli } = await import("./command");
    process.exitCode = await runCli(argv, commands, { notes: helpNotes });
  }
}
