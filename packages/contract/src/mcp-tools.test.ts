import { describe, expect, it } from "vitest";
import { mcpTools } from "./mcp-tools";

/**
 * The schema-portability rules of the MCP Inspector's `--strict` check, as this test reads them:
 * clients that take the single-type JSON Schema subset reject a tool whose schemas break one. The
 * Inspector's own rules were not found in its source, so these are the ones its warnings named
 * (type arrays, empty schemas, `nullable`) and their near kin (a schema with no type, keywords
 * outside the subset, references that leave the schema).
 */
const OUTSIDE_SUBSET = [
  "nullable",
  "propertyNames",
  "patternProperties",
  "$ref",
  "$defs",
  "definitions",
];
const TYPED_BY = ["type", "anyOf", "oneOf", "allOf", "enum", "const"];

/** A schema's own subschemas, each with its path. */
function subschemas(o: Record<string, unknown>, path: string): [unknown, string][] {
  const found: [unknown, string][] = [];
  for (const [name, child] of Object.entries((o.properties ?? {}) as Record<string, unknown>))
    found.push([child, `${path}.${name}`]);
  if (Array.isArray(o.items))
    for (const [i, child] of o.items.entries()) found.push([child, `${path}[${i}]`]);
  else if (o.items !== undefined) found.push([o.items, `${path}[]`]);
  // `additionalProperties: true|false` is how an open or closed object says so.
  if (o.additionalProperties !== undefined && typeof o.additionalProperties !== "boolean")
    found.push([o.additionalProperties, `${path}.*`]);
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    const branches = o[keyword];
    if (Array.isArray(branches))
      for (const [i, child] of branches.entries()) found.push([child, `${path}.${keyword}[${i}]`]);
  }
  if (o.not !== undefined) found.push([o.not, `${path}.not`]);
  return found;
}

function strictWarnings(schema: unknown, at: string): string[] {
  const warnings: string[] = [];
  const visit = (node: unknown, path: string) => {
    if (typeof node === "boolean") {
      warnings.push(`${path}: a boolean schema`);
      return;
    }
    if (!node || typeof node !== "object" || Array.isArray(node)) {
      warnings.push(`${path}: not a schema`);
      return;
    }
    const o = node as Record<string, unknown>;
    if (Object.keys(o).length === 0) {
      warnings.push(`${path}: an empty schema {}`);
      return;
    }
    if (Array.isArray(o.type)) warnings.push(`${path}: a type array ${JSON.stringify(o.type)}`);
    for (const keyword of OUTSIDE_SUBSET) if (keyword in o) warnings.push(`${path}: ${keyword}`);
    if (!TYPED_BY.some((keyword) => keyword in o)) warnings.push(`${path}: a schema with no type`);
    for (const [child, where] of subschemas(o, path)) visit(child, where);
  };
  visit(schema, at);
  return warnings;
}

describe("the MCP tools' schemas", () => {
  it("keep to the single-type subset every client reads (the Inspector's --strict rules)", () => {
    const warnings = mcpTools().flatMap((tool) => [
      ...strictWarnings(tool.inputSchema, `${tool.name} input`),
      ...(tool.outputSchema ? strictWarnings(tool.outputSchema, `${tool.name} output`) : []),
    ]);
    expect(warnings).toEqual([]);
  });

  it("say null as an anyOf branch and a record of any values as additionalProperties: true", () => {
    const propose = mcpTools().find((one) => one.name === "proposeAction");
    /** The schema at a path of property names. */
    const at = (schema: unknown, ...names: string[]): Record<string, unknown> =>
      names.reduce(
        (node, name) => (node.properties as Record<string, Record<string, unknown>>)[name] ?? {},
        schema as Record<string, unknown>,
      );
    expect(at(propose?.inputSchema, "payload")).toMatchObject({
      type: "object",
      additionalProperties: true,
    });
    const editedPayload = at(propose?.outputSchema, "action", "editedPayload");
    expect(editedPayload.anyOf).toEqual([
      expect.objectContaining({ type: "object", additionalProperties: true }),
      { type: "null" },
    ]);
  });

  it("are caught by the rules when they break them", () => {
    expect(
      strictWarnings(
        {
          type: "object",
          properties: {
            a: { type: ["string", "null"] },
            b: {},
            c: { type: "string", nullable: true },
          },
          additionalProperties: {},
        },
        "t",
      ),
    ).toEqual([
      't.a: a type array ["string","null"]',
      "t.b: an empty schema {}",
      "t.c: nullable",
      "t.*: an empty schema {}",
    ]);
  });
});
