import { parseArgs } from "node:util";
import { type CoreDeps, CoreError, createDeps, loadConfig } from "@switchboard/core";
import { resolveDatabaseUrl } from "./instance";

type FlagKind = "string" | "boolean";

export interface Command<F extends string = string> {
  /** Words that name it, e.g. `user create`. */
  name: string;
  /** One line shown in help, after the name: flags in cli.md's notation. */
  usage: string;
  flags: Record<F, { type: FlagKind; required?: boolean }>;
  run(flags: Record<F, string | boolean | undefined>, deps: CoreDeps): Promise<object>;
}

/** Keeps each command's flag names typed inside its `run`. */
export function command<F extends string>(definition: Command<F>): Command {
  return definition as unknown as Command;
}

class UsageError extends Error {}

/**
 * Runs one CLI invocation. Output contract (spec/cli.md): one JSON object on stdout and exit 0;
 * on failure one `{ error: { code, message } }` on stderr and a non-zero exit.
 */
export async function runCli(argv: string[], commands: Command[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "help") {
    process.stdout.write(`${helpText(commands)}\n`);
    return 0;
  }
  const found = commands
    .filter((c) => c.name.split(" ").every((word, i) => argv[i] === word))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (!found)
    return fail(
      "validation_error",
      `Unknown command: ${argv.slice(0, 2).join(" ")}\n${helpText(commands)}`,
    );
  const rest = argv.slice(found.name.split(" ").length);
  if (rest.includes("--help")) {
    process.stdout.write(`usage: switchboard ${found.name} ${found.usage}\n`);
    return 0;
  }

  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseFlags(found, rest);
  } catch (error) {
    return fail(
      "validation_error",
      `${(error as Error).message}\nusage: switchboard ${found.name} ${found.usage}`,
    );
  }

  let close = async () => {};
  try {
    const created = createDeps(loadConfig({ ...process.env, DATABASE_URL: resolveDatabaseUrl() }), {
      poolSize: 2,
    });
    close = created.close;
    const result = await found.run(flags, created.deps);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof CoreError) return fail(error.code, error.message);
    if (error instanceof UsageError) return fail("validation_error", error.message);
    return fail("internal_error", (error as Error).message ?? String(error));
  } finally {
    await close();
  }
}

function parseFlags(found: Command, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: Object.fromEntries(
      Object.entries(found.flags).map(([name, flag]) => [name, { type: flag.type }]),
    ),
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`Unexpected argument: ${positionals[0]}`);
  const missing = Object.entries(found.flags)
    .filter(([name, flag]) => flag.required && values[name] === undefined)
    .map(([name]) => `--${name}`);
  if (missing.length > 0) throw new UsageError(`Missing ${missing.join(", ")}`);
  return values as Record<string, string | boolean | undefined>;
}

function fail(code: string, message: string): number {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  return 1;
}

function helpText(commands: Command[]): string {
  return [
    "usage: switchboard <command> [flags]   (npm run -s cli -- <command> [flags])",
    "",
    "  start [--dev]   run the whole service (what `npm start` does)",
    ...commands.map((c) => `  ${c.name} ${c.usage}`),
  ].join("\n");
}

/** Comma-separated list flag; `""` is an empty list. */
export const list = (value: string | boolean | undefined): string[] =>
  typeof value === "string"
    ? value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean)
    : [];

/** An ISO date-time flag with an offset, e.g. 2027-01-01T00:00:00Z. */
export function isoDate(name: string, value: string | boolean | undefined): Date | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "string" ||
    !/^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(value) ||
    Number.isNaN(Date.parse(value))
  )
    throw new UsageError(
      `--${name} must be an ISO date-time with an offset, e.g. 2027-01-01T00:00:00Z`,
    );
  return new Date(value);
}

export const str = (value: string | boolean | undefined): string | undefined =>
  typeof value === "string" ? value : undefined;
