import type { Command } from "../command";
import { actionCommands } from "./actions";
import { agentCommands } from "./agent";
import { callCommands } from "./call";
import { devkeyCommands } from "./devkey";
import { emailCommands } from "./email";
import { listenCommands } from "./listen";
import { personCommands } from "./person";
import { tokenCommands } from "./token";
import { triggerCommands } from "./trigger";
import { userCommands } from "./user";
import { webhookCommands } from "./webhook";

/** Every command group (one file in commands/ each); adding a group is one entry here. */
export const commands: Command[] = [
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

/** Help lines for the long-running commands main.ts dispatches itself. */
export const helpNotes = [
  "start [--dev]   run the whole service (what `npm start` does)",
  "mcp --token T [--url BASE]   the Agent API as MCP tools over stdio",
];
