import { runCli } from "./command";
import { commands, helpNotes } from "./commands";

const argv = process.argv.slice(2);
if (argv[0] === "start") {
  // Long-running, so outside the one-JSON-object contract of the other commands.
  const { runStart } = await import("./start/start");
  await runStart(argv.slice(1));
} else if (argv[0] === "mcp") {
  // Long-running too: MCP over stdio, forwarded to the running service.
  process.exitCode = await (await import("./commands/mcp")).runMcp(argv.slice(1));
} else {
  process.exitCode = await runCli(argv, commands, { notes: helpNotes });
}
