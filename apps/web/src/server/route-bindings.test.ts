import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type Operation, operations, ops } from "@switchboard/contract";
import { expect, it } from "vitest";

/**
 * The operation registry is the one place paths and responses are declared: every entry has its
 * route file at the matching path, and every route file of the two APIs only binds entries.
 */
const apiDir = path.resolve(import.meta.dirname, "../../app/api");

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith("[...") ? [] : routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

/** `/agent/v1/messages/{messageId}/audio` → `agent/v1/messages/[messageId]/audio/route.ts`. */
const fileOf = (op: Operation) =>
  path.join(apiDir, op.path.replace(/\{(\w+)\}/g, "[$1]"), "route.ts");

const all = [...routeFiles(path.join(apiDir, "agent/v1")), ...routeFiles(path.join(apiDir, "v1"))];
/** The OpenAPI document itself is served beside the operations it describes, without auth. */
const isDocument = (file: string) => file.endsWith(path.join("openapi.json", "route.ts"));
/** The MCP endpoint serves the Agent API's entries as tools (src/mcp), through these routes. */
const isMcp = (file: string) => file === path.join(apiDir, "agent/v1/mcp/route.ts");
const files = all.filter((file) => !isDocument(file) && !isMcp(file));

it("serves the OpenAPI document on both surfaces and nothing else without a registry entry", () => {
  expect(all.filter(isDocument).map((file) => path.relative(apiDir, file))).toEqual([
    path.join("agent/v1/openapi.json/route.ts"),
    path.join("v1/openapi.json/route.ts"),
  ]);
});

it("has a route file for every registry entry", () => {
  for (const op of operations) expect(files, op.operationId).toContain(fileOf(op));
});

it("binds, in each route file, exactly the registry entries of its path, through their surface", () => {
  const bound = new Map<string, string>();
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    const rel = path.relative(apiDir, file);
    // Nothing declares its own input, status or response: no options form, no response helpers.
    expect(source, rel).not.toMatch(/(agentRoute|devRoute)\(\s*\{/);
    expect(source, rel).not.toMatch(/~\/server\/responses|\bmethods\(/);
    expect(source, rel).toMatch(/= routes\(/);
    const uses = [...source.matchAll(/\b(agentRoute|devRoute)\(\s*ops\.(\w+)/g)];
    expect(uses.length, rel).toBeGreaterThan(0);
    expect([...source.matchAll(/\b(agentRoute|devRoute)\(/g)].length, rel).toBe(uses.length);
    for (const [, wrapper, id = ""] of uses) {
      const op = ops[id as keyof typeof ops];
      expect(op, `${rel}: ops.${id}`).toBeDefined();
      expect(fileOf(op), `ops.${id} is bound in ${rel}`).toBe(file);
      expect(wrapper).toBe(op.surface === "agent" ? "agentRoute" : "devRoute");
      expect(bound.has(id), `ops.${id} bound twice`).toBe(false);
      bound.set(id, rel);
    }
  }
  expect([...bound.keys()].sort()).toEqual(operations.map((op) => op.operationId).sort());
});
