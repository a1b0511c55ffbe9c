import { runCli } from "./command";
import { actionCommands } from "./commands/actions";
import { agentCommands } from "./commands/agent";
import { callCommands } from "./commands/call";
import { devkeyCommands } from "./commands/devkey";
import { emailCommands } from "./commands/email";
import { listenCommands } from "./commands/listen";
import { personCommands } from "./commands/person";
import { tokenCommands } from "./commands/token";
import { triggerCommands } from "./commands/trigger";
import { userCommands } from "./commands/user";
import { webhookCommands } from "./commands/webhook";

/** Every command group (one file in commands/ each); adding a group is one entry here. */
const commands = [
  ...userCommands,
  ...agentCommands,
  ...webhookCommands,
  ...tokenCommands,
  ...devkeyCommands,
  ...personCommands,
  ...actionCommands,
  ...emailCommands,
  ...callCommands,
  ...listenCommands,
  ...triggerCommands,
];

const argv = process.argv.slice(2);
if (argv[0] === "start") {
  // Long-running, so outside the one-JSON-object contract of the other commands.
  const { runStart } = await import("./start/start");
  await runStart(argv.slice(1));
} else if (argv[0] === "mcp") {
  // Long-running too: MCP over stdio, forwarded to the running service.
  process.exitCode = await (await import("./commands/mcp")).runMcp(argv.slice(1));
} else {
  process.exitCode = await runCli(argv, commands, [
    "start [--dev]   run the whole service (what `npm start` does)",
    "mcp --token T [--url BASE]   the Agent API as MCP tools over stdio",
  ]);
}
