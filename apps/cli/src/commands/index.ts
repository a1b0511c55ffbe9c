import type { Command } from "../command";

/**
 * Every command group (one file in commands/ each), imported only when one of its commands runs:
 * a group loads core, which costs more than the rest of a call (decision 0065). Adding a group is
 * one entry here.
 */
export const commandGroups: Record<string, () => Promise<Command[]>> = {
  user: async () => (await import("./user")).userCommands,
  agent: async () => (await import("./agent")).agentCommands,
  webhook: async () => (await import("./webhook")).webhookCommands,
  token: async () => (await import("./token")).tokenCommands,
  devkey: async () => (await import("./devkey")).devkeyCommands,
  person: async () => (await import("./person")).personCommands,
  actions: async () => (await import("./actions")).actionCommands,
  email: async () => (await import("./email")).emailCommands,
  call: async () => (await import("./call")).callCommands,
  listen: async () => (await import("./listen")).listenCommands,
  trigger: async () => (await import("./trigger")).triggerCommands,
};

/** A command without its code: what the built CLI knows of every command before loading any. */
export type CommandSummary = Pick<Command, "name" | "usage" | "flags"> & { group: string };

/**
 * Every command, in the registry's order. Given the built CLI's summaries, each one loads its
 * group only when it runs; without them (tsx, tests) every group is loaded now.
 */
export async function listCommands(built?: CommandSummary[]): Promise<Command[]> {
  if (!built) return (await Promise.all(Object.values(commandGroups).map((load) => load()))).flat();
  return built.map(({ group, ...summary }) => ({
    ...summary,
    async run(flags, deps) {
      const loaded = (await commandGroups[group]?.())?.find((c) => c.name === summary.name);
      if (!loaded) throw new Error(`The built CLI is out of date: no command ${summary.name}`);
      return loaded.run(flags, deps);
    },
  }));
}

/** Help lines for the long-running commands main.ts dispatches itself. */
export const helpNotes = [
  "start [--dev]   run the whole service (what `npm start` does)",
  "mcp --token T [--url BASE]   the Agent API as MCP tools over stdio",
];
