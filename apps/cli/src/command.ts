import { parseArgs } from "node:util";
import { DateTime, findUnstorableText, unstorableTextReason } from "@switchboard/contract";
import {
  type CoreDeps,
  CoreError,
  createDeps,
  KeyUnavailableError,
  loadConfig,
  parseInput,
  rootCause,
} from "@switchboard/core";
import { z } from "zod";
import { dataDir, InstanceNotFoundError, resolveDatabaseUrl, whereLooked } from "./instance";
import { keptKeys, keysFile } from "./start/keys";
import { asksForHelp, isHelp, usageOf } from "./usage";

/** One flag: `--name VALUE` (a string) or a bare `--name` (a boolean). */
export type FlagSpec = { type: "string"; required?: boolean } | { type: "boolean" };
type FlagSpecs = Record<string, FlagSpec>;

/** What `run` receives for a flag: required strings are always there. */
type FlagValue<S extends FlagSpec> = S extends { type: "boolean" }
  ? boolean | undefined
  : S extends { required: true }
    ? string
    : string | undefined;
export type Flags<S extends FlagSpecs> = { [K in keyof S]: FlagValue<S[K]> };

export interface Command<S extends FlagSpecs = FlagSpecs> {
  /** Words that name it, e.g. `user create`; the first word is its group. */
  name: string;
  /** One line shown in help, after the name: flags in cli.md's notation. */
  usage: string;
  flags: S;
  /** Calls core and answers the JSON object printed on stdout. */
  run(flags: Flags<S>, deps: CoreDeps): Promise<object>;
}

/** Where an invocation writes: the process's stdout and stderr, or a test's buffers. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export interface RunOptions {
  /** Extra lines for the full help, for commands dispatched elsewhere (`start`). */
  notes?: string[];
  output?: CliOutput;
  /** The database to use; by default DATABASE_URL, else the running `npm start`'s. */
  databaseUrl?: string;
}

/** Defines a command; its flag names and types are checked inside `run`. */
export function command<const S extends FlagSpecs>(definition: Command<S>): Command {
  return definition as unknown as Command;
}

/**
 * Runs one CLI invocation. Output contract (spec/cli.md): one JSON object on stdout and exit 0;
 * on failure one `{ error: { code, message } }` on stderr and a non-zero exit. Every
 * `validation_error` (bad, missing or unknown flags, unknown commands) carries the usage.
 */
export async function runCli(
  argv: string[],
  commands: Command[],
  { notes = [], output = processOutput, databaseUrl }: RunOptions = {},
): Promise<number> {
  const help = (shown: Command[], withNotes: string[] = []) => {
    output.out(`${usageOf(shown, withNotes)}\n`);
    return 0;
  };
  const fail = (code: string, message: string) => {
    output.err(`${JSON.stringify({ error: { code, message } })}\n`);
    return 1;
  };
  if (asksForHelp(argv)) return help(commands, notes);
  const found = commands
    .filter((c) => c.name.split(" ").every((word, i) => argv[i] === word))
    .sort((a, b) => b.name.length - a.name.length)[0];
  if (!found) {
    const group = commands.filter((c) => c.name.split(" ")[0] === argv[0]);
    if (group.length > 0 && (argv[1] === "help" || argv.some(isHelp))) return help(group);
    const what = group.length > 0 && argv.length === 1 ? "Missing subcommand" : "Unknown command";
    const given = argv.slice(0, 2).filter((arg) => !arg.startsWith("-"));
    return fail(
      "validation_error",
      `${what}: ${given.join(" ")}\n${group.length > 0 ? usageOf(group) : usageOf(commands, notes)}`,
    );
  }
  const rest = argv.slice(found.name.split(" ").length);
  if (rest.some(isHelp)) return help([found]);

  let close = async () => {};
  try {
    const flags = parseFlags(found, rest);
    // The instance's keys: from the environment, else the data directory's keys file (what
    // `npm start` runs with). Never made here: a process that made its own would seal with a
    // key nobody else has.
    const config = loadConfig({
      ...keptKeys(dataDir),
      ...process.env,
      DATABASE_URL: databaseUrl ?? resolveDatabaseUrl(),
    });
    const created = createDeps(config, { poolSize: 2 });
    close = created.close;
    const result = await found.run(flags, created.deps);
    output.out(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InstanceNotFoundError) return fail("instance_not_found", error.message);
    if (error instanceof KeyUnavailableError)
      return fail(
        "keys_not_found",
        `${error.message}: no such key in the environment nor in ${keysFile(dataDir)}; ${whereLooked()}`,
      );
    if (!(error instanceof CoreError)) {
      // Report the root cause (ECONNREFUSED, say), not a wrapper's "Failed query: <sql>".
      const root = rootCause(error);
      const message = root instanceof Error ? root.message || root.name : String(root);
      return fail("internal_error", message);
    }
    if (error.code !== "validation_error") return fail(error.code, error.message);
    return fail(error.code, `${error.message}\n${usageOf([found])}`);
  } finally {
    await close();
  }
}

function parseFlags(found: Command, args: string[]): Flags<FlagSpecs> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(
        Object.entries(found.flags).map(([name, flag]) => [name, { type: flag.type }]),
      ),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new CoreError("validation_error", (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0)
    throw new CoreError("validation_error", `Unexpected argument: ${positionals[0]}`);
  const missing = Object.entries(found.flags)
    .filter(([name, flag]) => flag.type === "string" && flag.required && values[name] === undefined)
    .map(([name]) => `--${name}`);
  if (missing.length > 0) throw new CoreError("validation_error", `Missing ${missing.join(", ")}`);
  // The one storable-text rule (as REST, tRPC and frames apply it), for every string flag. A
  // POSIX argv cannot carry NUL and decodes bad UTF-8 to U+FFFD, but runCli's callers and
  // other platforms are not bound by that; JSON flags are checked again once parsed (`json`).
  for (const [name, value] of Object.entries(values)) {
    const reason = typeof value === "string" ? unstorableTextReason(value) : null;
    if (reason) throw new CoreError("validation_error", `--${name} ${reason}`);
  }
  return values as Flags<FlagSpecs>;
}

/** Comma-separated list flag; `""` is an empty list. */
export const list = (value: string | boolean | undefined): string[] =>
  typeof value === "string"
    ? value
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean)
    : [];

/** An ISO 8601 date-time flag with an offset (the contract's `DateTime`), e.g. 2027-01-01T00:00:00Z. */
export function isoDate(name: string, value: string | boolean | undefined): Date | undefined {
  if (value === undefined) return undefined;
  if (!DateTime.safeParse(value).success)
    throw new CoreError(
      "validation_error",
      `--${name} must be an ISO 8601 date-time with an offset, e.g. 2027-01-01T00:00:00Z`,
    );
  return new Date(value as string);
}

/**
 * A JSON flag (`--data`, `--edited-payload`); bad JSON, or a string in it that cannot be stored
 * (a `\u0000` or lone-surrogate escape), is a validation_error naming the flag and the place.
 */
export function json(name: string, value: string | boolean | undefined): unknown {
  if (typeof value !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return parseInput(z.never(), value, name);
  }
  // The CLI prints only a message: the first place is enough to find it.
  const [first] = findUnstorableText(parsed, 1);
  const at = first?.path ? ` (at ${first.path})` : "";
  if (first) throw new CoreError("validation_error", `--${name}${at} ${first.message}`);
  return parsed;
}

export const str = (value: string | boolean | undefined): string | undefined =>
  typeof value === "string" ? value : undefined;
