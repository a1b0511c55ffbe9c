/** What a usage line needs of a command (command.ts `Command`). */
export interface Usage {
  name: string;
  usage: string;
}

/** Only as a flag: `help` may well be a flag's value (`--name help`). */
export const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h";

/** `switchboard`, `switchboard help`, `switchboard --help`: the full list of commands. */
export const asksForHelp = (argv: string[]) =>
  argv.length === 0 || argv[0] === "help" || isHelp(argv[0]);

/** `usage: switchboard <command> <flags>`: one command's line, or the list for several. */
export function usageOf(commands: Usage[], notes: string[] = []): string {
  const [only] = commands;
  if (commands.length === 1 && only && notes.length === 0)
    return `usage: switchboard ${only.name} ${only.usage}`;
  return [
    "usage: switchboard <command> [flags]   (npm run -s cli -- <command> [flags])",
    "",
    ...notes.map((note) => `  ${note}`),
    ...commands.map((c) => `  ${c.name} ${c.usage}`),
  ].join("\n");
}
