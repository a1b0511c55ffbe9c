#!/usr/bin/env node
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { distDir, entry, inputsFile } from "./fresh.mjs";

/**
 * Builds the CLI ahead of time (decision 0065): src/main.ts and the workspace packages it uses
 * (TypeScript source packages, decision 0001) bundled into dist/, node_modules left external,
 * one chunk per command group so a command loads only its own group. Every command's name, usage
 * and flags are built in as BUILT_COMMANDS, so help loads no group at all. dist/ must stay three
 * levels below the repository root: instance.ts and db's migrate.ts find the root from
 * import.meta.url, and every output file (entry and chunks alike) sits directly in dist/.
 * Run by `npm install` (the root's prepare), `npm run build`, and bin/switchboard.js when stale.
 */
export async function buildCli() {
  const cliDir = fileURLToPath(new URL("../", import.meta.url));
  const outdir = fileURLToPath(distDir);
  mkdirSync(outdir, { recursive: true });
  const common = {
    absWorkingDir: cliDir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    metafile: true,
    plugins: [workspaceSourcesOnly],
  };

  // First the registry alone, run once in a Node of its own (importing core there leaves no
  // state in this process, which may go on to run the CLI) to read every command's name, usage
  // and flags.
  const describe = path.join(outdir, `describe-${process.pid}.mjs`);
  const described = await build({
    ...common,
    entryPoints: ["src/commands/index.ts"],
    outfile: describe,
  });
  let commands;
  try {
    const listed = `${describe}.json`;
    const script = `import { writeFileSync } from "node:fs";
const { commandGroups } = await import(${JSON.stringify(pathToFileURL(describe).href)});
const commands = [];
for (const [group, load] of Object.entries(commandGroups))
  for (const { name, usage, flags } of await load()) commands.push({ name, usage, flags, group });
writeFileSync(${JSON.stringify(listed)}, JSON.stringify(commands));
process.exit(0); // whatever importing core left running`;
    execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    commands = JSON.parse(readFileSync(listed, "utf8"));
  } finally {
    rmSync(describe, { force: true });
    rmSync(`${describe}.json`, { force: true });
  }

  // Then the CLI, written file by file through a rename: a CLI started meanwhile (tests run
  // several at once) reads a whole old file or a whole new one. Chunk names carry a content
  // hash, and the entry is written last, so a new entry finds its chunks.
  const built = await build({
    ...common,
    entryPoints: { switchboard: "src/main.ts" },
    outdir,
    splitting: true,
    write: false,
    define: { BUILT_COMMANDS: JSON.stringify(commands) },
  });
  const entryPath = fileURLToPath(entry);
  const isEntry = (file) => (file.path === entryPath ? 1 : 0);
  const written = new Set();
  for (const file of built.outputFiles.toSorted((a, b) => isEntry(a) - isEntry(b))) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
    written.add(path.basename(file.path));
  }
  // Chunks of an older build (not another's .tmp) go once no CLI can still want them: one that
  // loaded the old entry imports its command group's chunk moments later, so a chunk is kept
  // for ten minutes after it was written.
  const staleBefore = Date.now() - 10 * 60_000;
  for (const stale of readdirSync(outdir)) {
    const file = path.join(outdir, stale);
    if (/^[a-z]+-[A-Z0-9]{8}\.js$/.test(stale) && !written.has(stale))
      if (statSync(file, { throwIfNoEntry: false })?.mtimeMs < staleBefore)
        rmSync(file, { force: true });
  }

  // What it was built from, with each file's mtime: bin/switchboard.js rebuilds when one differs.
  const sources = [
    ...Object.keys(described.metafile.inputs),
    ...Object.keys(built.metafile.inputs),
    "scripts/build.mjs",
  ]
    .filter((input) => !input.startsWith("<")) // esbuild's own, such as <define:BUILT_COMMANDS>
    .map((input) => path.resolve(cliDir, input))
    // A package's exports map decides which of its files an import reaches.
    .flatMap((file) => {
      const src = file.lastIndexOf(`${path.sep}src${path.sep}`);
      return src < 0 ? [file] : [file, path.join(file.slice(0, src), "package.json")];
    });
  const inputs = Object.fromEntries(
    [...new Set(sources)].sort().map((file) => [file, statSync(file).mtimeMs]),
  );
  const stamp = fileURLToPath(inputsFile);
  writeFileSync(`${stamp}.${process.pid}.tmp`, `${JSON.stringify({ inputs }, null, 1)}\n`);
  renameSync(`${stamp}.${process.pid}.tmp`, stamp);
}

/** Workspace packages (@switchboard/*) are bundled from their sources; node_modules stay external. */
const workspaceSourcesOnly = {
  name: "workspace-sources-only",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith("@switchboard/") ? undefined : { external: true },
    );
  },
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildCli();
