import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * The README and docs/ never mislead: every relative link reaches a file (and a heading in it),
 * every `npm run` names a script of the package it runs in, every `npm run -s cli -- …` names a
 * command of the CLI, and every environment variable they name is read by some code.
 */
const root = path.resolve(import.meta.dirname, "../../..");
const SKIP = new Set(["node_modules", ".git", ".next", ".next-e2e", ".data", "dist", ".turbo"]);

function walk(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (SKIP.has(entry) || entry.startsWith(".next")) return [];
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return walk(full, keep);
    return keep(full) ? [full] : [];
  });
}

const docs = [
  path.join(root, "README.md"),
  ...walk(path.join(root, "docs"), (f) => f.endsWith(".md")),
];
const read = (file: string) => readFileSync(file, "utf8");
const where = (file: string) => path.relative(root, file);

/** Fenced blocks and inline code spans, the places a reader copies commands from. */
function codeOf(markdown: string): string[] {
  const fenced = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1] as string);
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  const inline = [...prose.matchAll(/`([^`]+)`/g)].map((m) =>
    (m[1] as string).replace(/\s+/g, " "),
  );
  return [...fenced, ...inline];
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const prose = read(file).replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  return new Set([...prose.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] as string)));
}

export function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  const prose = markdown.replace(/^```[^\n]*\n[\s\S]*?^```/gm, "");
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (!target || /^[a-z]+:/i.test(target)) continue; // http:, mailto:
    const [filePart, anchor] = target.split("#") as [string, string | undefined];
    const linked = filePart ? path.resolve(path.dirname(file), filePart) : file;
    if (!existsSync(linked)) broken.push(`${where(file)}: ${target} (no such file)`);
    else if (anchor && linked.endsWith(".md") && !anchorsOf(linked).has(anchor))
      broken.push(`${where(file)}: ${target} (no such heading)`);
  }
  return broken;
}

type PackageJson = { name?: string; scripts?: Record<string, string> };
const packages = walk(root, (f) => path.basename(f) === "package.json").map(
  (f) => JSON.parse(read(f)) as PackageJson,
);
const rootPackage = JSON.parse(read(path.join(root, "package.json"))) as PackageJson;
const workspaceScripts = (name: string) =>
  packages.find((p) => p.name === name || p.name?.endsWith(`/${name}`))?.scripts;

export function unknownScripts(file: string, code: string[]): string[] {
  const unknown: string[] = [];
  for (const snippet of code) {
    for (const [, rest] of snippet.matchAll(/\bnpm run((?: [^\s;&#]+)+)/g)) {
      const words = (rest as string).trim().split(" ");
      let workspace: string | undefined;
      let script: string | undefined;
      for (let i = 0; i < words.length; i++) {
        const word = words[i] as string;
        if (word === "--") break;
        if (word === "-w" || word === "--workspace") workspace = words[++i];
        else if (word.startsWith("--workspace=")) workspace = word.slice(12);
        else if (word.startsWith("-")) continue;
        else script ??= word;
      }
      script = script?.replace(/[,.:;)]+$/, "");
      if (!script || script === "…") continue;
      const scripts = workspace ? workspaceScripts(workspace) : rootPackage.scripts;
      // `echo|webhook|tasks`: each of the alternatives must exist.
      for (const name of script.split("|"))
        if (!scripts?.[name])
          unknown.push(`${where(file)}: npm run ${script}${workspace ? ` -w ${workspace}` : ""}`);
    }
  }
  return unknown;
}

/** The CLI's commands: each `name: "…"` of its command groups, and what main.ts runs itself. */
const cliDir = path.join(root, "apps/cli/src");
const cliCommands = [
  ...walk(
    path.join(cliDir, "commands"),
    (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
  ).flatMap((f) => [...read(f).matchAll(/^ {4}name: "([a-z -]+)"/gm)].map((m) => m[1] as string)),
  ...[...read(path.join(cliDir, "main.ts")).matchAll(/argv\[0\] === "([a-z-]+)"/g)].map(
    (m) => m[1] as string,
  ),
  "help",
  "--help",
];

export function unknownCommands(file: string, code: string[]): string[] {
  const unknown: string[] = [];
  for (const snippet of code) {
    for (const [, rest] of snippet.matchAll(/\bnpm run(?: -s)? cli -- ([^\n;&|]*)/g)) {
      const words = (rest as string).trim().split(/\s+/);
      const [first, second] = words;
      if (!first || first === "…") continue;
      const known = cliCommands.some(
        (name) => name === first || (second !== undefined && name === `${first} ${second}`),
      );
      if (!known) unknown.push(`${where(file)}: cli -- ${words.slice(0, 2).join(" ")}`);
    }
  }
  return unknown;
}

/** Every variable the code reads: `process.env.X`, `env.X`, `env["X"]` and the config schema's keys. */
// Not this file: its planted mistakes are no code that reads them.
const codeFiles = walk(
  root,
  (f) => /\.(ts|tsx|mjs|js|cjs)$/.test(f) && !f.endsWith(".d.ts") && f !== import.meta.filename,
);
const readVariables = new Set<string>();
/** Every UPPER_SNAKE word of the code: a constant the docs name, if not a variable. */
const upperWords = new Set<string>();
for (const file of codeFiles) {
  const source = read(file);
  for (const [word] of source.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)) upperWords.add(word);
  for (const [, name] of source.matchAll(/\benv(?:\.|\?\.|\[["'])([A-Z][A-Z0-9_]+)/g))
    readVariables.add(name as string);
  for (const [, names] of source.matchAll(/\{([A-Z0-9_,\s]+)\}\s*=\s*process\.env/g))
    for (const name of (names as string).split(/[,\s]+/)) if (name) readVariables.add(name);
}
for (const [, name] of read(path.join(root, "packages/core/src/config.ts")).matchAll(
  /^ {2}([A-Z][A-Z0-9_]+):/gm,
))
  readVariables.add(name as string);

/** The first column of the README's environment tables: `NAME`, `OTHER`. */
function tableVariables(markdown: string): string[] {
  return [...markdown.matchAll(/^\| (`[A-Z][A-Z0-9_]+`(?:, `[A-Z][A-Z0-9_]+`)*) +\|/gm)].flatMap(
    (m) => [...(m[1] as string).matchAll(/`([A-Z0-9_]+)`/g)].map((n) => n[1] as string),
  );
}

export function unreadVariables(file: string, markdown: string): string[] {
  const named = new Set(tableVariables(markdown));
  // Elsewhere: `NAME=…` as it is set on a command line.
  for (const [, name] of markdown.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)=/g))
    named.add(name as string);
  const unread = [...named].filter((name) => !readVariables.has(name));
  // Any other backticked UPPER_SNAKE name is a variable or a constant: it must be in the code.
  for (const [, name] of markdown.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g))
    if (!named.has(name as string) && !upperWords.has(name as string)) unread.push(name as string);
  return [...new Set(unread)].map((n) => `${where(file)}: ${n}`);
}

it("finds the README, the docs and the CLI's commands it checks against", () => {
  expect(docs.length).toBeGreaterThan(5);
  expect(cliCommands).toContain("agent create");
  expect(tableVariables(read(path.join(root, "README.md"))).length).toBeGreaterThan(20);
});

it("links only to files and headings that exist", () => {
  expect(docs.flatMap((file) => brokenLinks(file, read(file)))).toEqual([]);
});

it("runs only npm scripts that exist, in the package they are run in", () => {
  expect(docs.flatMap((file) => unknownScripts(file, codeOf(read(file))))).toEqual([]);
});

it("names only commands the CLI has", () => {
  expect(docs.flatMap((file) => unknownCommands(file, codeOf(read(file))))).toEqual([]);
});

it("names only environment variables some code reads", () => {
  expect(docs.flatMap((file) => unreadVariables(file, read(file)))).toEqual([]);
});

it("catches a bad link, script, command and variable", () => {
  const file = path.join(root, "README.md");
  const bad =
    "[x](docs/nope.md) [y](docs/deploy.md#no-such-heading)\n```\nnpm run nope\nnpm run -s cli -- agent explode\n```\n`NO_SUCH_VARIABLE=1 npm start` `GONE_SETTING`\n";
  expect(brokenLinks(file, bad)).toHaveLength(2);
  expect(unknownScripts(file, codeOf(bad))).toEqual(["README.md: npm run nope"]);
  expect(unknownCommands(file, codeOf(bad))).toEqual(["README.md: cli -- agent explode"]);
  expect(unreadVariables(file, bad)).toEqual([
    "README.md: NO_SUCH_VARIABLE",
    "README.md: GONE_SETTING",
  ]);
});

/**
 * Read but not ours to document: set by the platform (Node, npm, Next.js, Vitest), or by a test
 * for the child process it starts itself.
 */
const notOurs = new Set(["HOME", "INIT_CWD", "NEXT_RUNTIME", "NODE_ENV", "VITEST", "LOADED_LOG"]);

it("lists in the README's tables every environment variable the code reads", () => {
  const listed = new Set(tableVariables(read(path.join(root, "README.md"))));
  const unlisted = [...readVariables].filter((name) => !listed.has(name) && !notOurs.has(name));
  expect(unlisted.sort()).toEqual([]);
});
