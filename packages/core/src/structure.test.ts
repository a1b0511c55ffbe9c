import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * Core's folders in layers, lowest first: a folder imports only from folders in lower layers,
 * never from its own layer or above, so every arrow between folders points down and no change
 * can tangle them into a cycle. The shared steps of every agent send (`sending`) sit below the
 * surfaces that send (actions, email, feed, messaging). Tests and the files at the top of core
 * (deps, config, errors, index…) are not part of the layering.
 */
const LAYERS: string[][] = [
  ["jobs", "net"], // the job queue's enqueueing; outbound requests to addresses we allow
  ["events"], // the event log, wake-ups, what an agent may see of an event
  ["limits"], // rate counters, leases, charges, storage quotas
  ["identity", "objects"], // users, agents, tokens; stored media
  ["calls", "consent", "notifications", "oauth", "updates", "voice"], // access checks, push, OAuth grants, long-poll, speech
  ["records", "sending"], // the platform's skills; the one send sequence and its steps
  ["actions", "email", "feed"], // surfaces that send
  ["contacts", "messaging", "webhooks"],
  ["idempotency"], // Idempotency-Keys: answers kept for retries (some sealed like secrets)
  ["maintenance"], // sweeps that reach into everything
  ["scale"], // query plans at scale (tests only)
];

const coreSrc = import.meta.dirname;
const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((f) => [f, layer])));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) && !/testing/.test(entry)
      ? [full]
      : [];
  });
}

const folders = readdirSync(coreSrc).filter((entry) =>
  statSync(path.join(coreSrc, entry)).isDirectory(),
);

it("places every folder of core in a layer", () => {
  expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
  expect([...layerOf.keys()].filter((folder) => !folders.includes(folder))).toEqual([]);
});

it("imports only from lower layers between core's folders", () => {
  const upward: string[] = [];
  for (const folder of folders) {
    for (const file of sourceFiles(path.join(coreSrc, folder))) {
      const source = readFileSync(file, "utf8");
      for (const [, spec] of source.matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = path.relative(coreSrc, path.resolve(path.dirname(file), spec as string));
        const targetFolder = target.includes(path.sep) ? target.split(path.sep)[0] : null;
        if (!targetFolder || targetFolder === folder) continue;
        if ((layerOf.get(targetFolder) ?? Infinity) >= (layerOf.get(folder) ?? -1))
          upward.push(`${path.relative(coreSrc, file)} → ${target}`);
      }
    }
  }
  expect(upward).toEqual([]);
});

/**
 * The whole repository, file by file: every import between its TypeScript files (type-only
 * ones too: a circle of types is still a circle to read), resolved through relative paths, the
 * web app's `~/` and each workspace's `exports`.
 */
const repoRoot = path.resolve(coreSrc, "../../..");

/** The workspaces in layers, lowest first: a workspace imports only from lower layers. */
const WORKSPACE_LAYERS: string[][] = [
  ["packages/contract", "packages/db"], // the spec as code; the schema and its tools
  ["packages/core", "packages/sdk"], // the domain; the agents' client
  ["apps/worker", "apps/web", "examples"], // the processes; examples of agents over the SDK
  ["apps/cli"], // the operator's CLI, which starts web and worker
  ["packages/bench"], // measures over a started service
  ["packages/chaos"], // faults over a started cluster, measured with the bench's CPU reader
  ["e2e"], // black-box tests of the running service
];
const workspaceLayer = new Map(
  WORKSPACE_LAYERS.flatMap((workspaces, layer) => workspaces.map((w) => [w, layer])),
);

const SKIPPED = new Set(["node_modules", "dist", "test-results", "drizzle"]);

function repoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (SKIPPED.has(entry) || entry.startsWith(".")) return [];
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return repoFiles(full);
    return /\.(ts|tsx|mts|mjs)$/.test(entry) && !entry.endsWith(".d.ts") ? [full] : [];
  });
}

const workspaceOf = (file: string): string | undefined => {
  const relative = path.relative(repoRoot, file).split(path.sep);
  const top = relative[0] === "e2e" || relative[0] === "examples" ? relative[0] : null;
  return top ?? (relative.length > 2 ? `${relative[0]}/${relative[1]}` : undefined);
};

const exportsOf = new Map<string, { dir: string; exports: Record<string, string> }>(
  [...workspaceLayer.keys()].flatMap((workspace) => {
    const manifest = path.join(repoRoot, workspace, "package.json");
    try {
      const { name, exports } = JSON.parse(readFileSync(manifest, "utf8"));
      return [[name as string, { dir: path.join(repoRoot, workspace), exports: exports ?? {} }]];
    } catch {
      return [];
    }
  }),
);

function existing(base: string): string | null {
  const stem = base.replace(/\.(m?js)$/, "");
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}/index.ts`])
    if (candidate !== base || /\.(ts|tsx|mts|mjs)$/.test(base))
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch {}
  return null;
}

function resolveImport(from: string, spec: string): string | null {
  if (spec.startsWith(".")) return existing(path.resolve(path.dirname(from), spec));
  if (spec.startsWith("~/")) return existing(path.join(repoRoot, "apps/web/src", spec.slice(2)));
  const [scope, name, ...rest] = spec.split("/");
  const workspace = exportsOf.get(`${scope}/${name}`);
  if (!workspace) return null;
  const target = workspace.exports[rest.length ? `./${rest.join("/")}` : "."];
  return target ? existing(path.join(workspace.dir, target)) : null;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of repoFiles(repoRoot)) {
    const source = readFileSync(file, "utf8");
    const targets = [...source.matchAll(IMPORT)]
      .map(([, from, dynamic]) => resolveImport(file, (from ?? dynamic) as string))
      .filter((target): target is string => target !== null && target !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan): each one a circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target))
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      group.push(path.relative(repoRoot, member));
      if (member === file) break;
    }
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

it("has no circle of imports anywhere in the repository", () => {
  expect(circles(importGraph())).toEqual([]);
});

it("imports only from lower workspaces", () => {
  const upward: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = workspaceOf(file);
    for (const target of targets) {
      const to = workspaceOf(target);
      if (!from || !to || from === to) continue;
      if ((workspaceLayer.get(to) ?? Infinity) >= (workspaceLayer.get(from) ?? -1))
        upward.push(`${path.relative(repoRoot, file)} → ${path.relative(repoRoot, target)}`);
    }
  }
  expect(upward).toEqual([]);
});

it("reads the imports it judges: type-only, through exports and `~/`, across workspaces", () => {
  const graph = importGraph();
  const arrows = (file: string) =>
    (graph.get(path.join(repoRoot, file)) ?? []).map((target) => path.relative(repoRoot, target));
  expect(arrows("packages/sdk/src/updates.ts")).toContain("packages/sdk/src/types.ts");
  expect(arrows("apps/web/src/server/api-route.ts")).toContain("packages/core/src/index.ts");
  expect(arrows("e2e/playwright.config.ts")).toEqual(["packages/bench/src/chromium.ts"]);
  // deps.ts is imported by every module of core: it imports none of core's folders.
  expect(arrows("packages/core/src/deps.ts").filter((t) => t.startsWith("packages/core"))).toEqual([
    "packages/core/src/clock.ts",
    "packages/core/src/config.ts",
  ]);
});
