import { z } from "zod";
import {
  IDEMPOTENCY_KEY_ARGUMENT,
  IdempotencyKey,
  idempotencyKeyDescription,
  takesIdempotencyKey,
} from "./idempotency";
import { type Operation, operationErrors, operations } from "./operations";

/**
 * The MCP tools of the Agent API, generated from the operation registry: one tool per Agent API
 * operation, named by its `operationId`. A tool's input is the operation's path parameters, query
 * parameters and body fields in one object (names as in the OpenAPI document); its output is the
 * REST answer's JSON. `/api/agent/v1/mcp` serves them and runs each call through the REST route.
 */

type Json = Record<string, unknown>;

export interface McpToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Json & { type: "object" };
  /** Absent for a binary answer (voice audio comes back as MCP audio content). */
  outputSchema?: Json & { type: "object" };
  annotations: McpToolAnnotations;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A schema node in the single-type subset every MCP client reads: some clients (the MCP
 * Inspector's `--strict` check names them) reject a `type` array such as `["string", "null"]`,
 * so it becomes an `anyOf` of one-type branches; the same JSON validates either way.
 */
function singleTyped(node: Json): Json {
  const { type, description, title, ...rest } = node;
  if (!Array.isArray(type)) return node;
  const branches = (type as string[]).map((one) => {
    if (one === "null") return { type: "null" };
    const branch: Json = { type: one, ...rest };
    if (Array.isArray(rest.enum)) branch.enum = rest.enum.filter((value) => value !== null);
    return branch;
  });
  return {
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    anyOf: branches,
  };
}

const isEmptySchema = (value: unknown): boolean =>
  !!value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * zod's JSON Schema (draft-07, what MCP clients validate with), self-contained, tidied and
 * portable: no `type` arrays (`singleTyped`), no empty `{}` schema (a record of any values says
 * `additionalProperties: true`), no `propertyNames` (JSON keys are strings anyway). The one place
 * every tool's schemas pass through; `mcp-tools.test.ts` holds them to those rules.
 */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  // `names`: the node is a `properties` map, whose keys are field names, not keywords.
  const tidy = (node: unknown, names = false): unknown => {
    if (Array.isArray(node)) return node.map((item) => tidy(item));
    if (!node || typeof node !== "object") return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node as Json)) {
      if (names) {
        out[key] = tidy(value);
        continue;
      }
      if (key === "$schema" || key === "$id" || key === "propertyNames") continue;
      if ((key === "minimum" && value === -SAFE) || (key === "maximum" && value === SAFE)) continue;
      // Answers may gain optional fields within v1, so no output object is closed.
      if (io === "output" && key === "additionalProperties" && value === false) continue;
      if (key === "additionalProperties" && isEmptySchema(value)) {
        out[key] = true;
        continue;
      }
      out[key] = tidy(value, key === "properties");
    }
    return names ? out : singleTyped(out);
  };
  return tidy(z.toJSONSchema(schema, { io, target: "draft-7", unrepresentable: "any" })) as Json;
}

/** A query value arrives as JSON here: the digits-only text patterns become numbers. */
function queryValueSchema(schema: Json): Json {
  const { pattern, ...rest } = schema;
  if (pattern === "^\\d{1,15}$" || pattern === "^\\d{1,3}$")
    return { ...rest, type: "integer", minimum: 0 };
  if (pattern === "^\\d{1,9}(\\.\\d{1,6})?$") return { ...rest, type: "number", minimum: 0 };
  return schema;
}

/** Where each argument of an operation's tool goes (`header`: the `Idempotency-Key`). */
export type ArgumentPlace = "path" | "query" | "body" | "header";

/** The argument names of an operation's tool and where each goes; names never collide. */
export function toolArguments(op: Operation): Map<string, ArgumentPlace> {
  const places = new Map<string, ArgumentPlace>();
  const add = (name: string, place: ArgumentPlace) => {
    if (places.has(name))
      throw new Error(
        `${op.operationId}: argument ${name} is both ${places.get(name)} and ${place}`,
      );
    places.set(name, place);
  };
  for (const name of Object.keys(op.params.shape)) add(name, "path");
  for (const name of Object.keys(propertiesOf(op.query, "input"))) add(name, "query");
  for (const name of Object.keys(propertiesOf(op.body, "input"))) add(name, "body");
  if (takesIdempotencyKey(op)) add(IDEMPOTENCY_KEY_ARGUMENT, "header");
  return places;
}

function propertiesOf(schema: z.ZodType | undefined, io: "input" | "output"): Json {
  return schema ? ((jsonSchema(schema, io).properties ?? {}) as Json) : {};
}

function inputSchemaOf(op: Operation): McpTool["inputSchema"] {
  const properties: Json = {};
  const required: string[] = [];
  for (const name of Object.keys(op.params.shape)) {
    properties[name] = { type: "string", minLength: 1 };
    required.push(name);
  }
  for (const [part, schema] of [
    ["query", op.query],
    ["body", op.body],
  ] as const) {
    if (!schema) continue;
    const json = jsonSchema(schema, "input");
    for (const [name, value] of Object.entries((json.properties ?? {}) as Record<string, Json>))
      properties[name] = part === "query" ? queryValueSchema(value) : value;
    if (!(part === "body" && op.optionalBody))
      required.push(...((json.required ?? []) as string[]));
  }
  if (takesIdempotencyKey(op))
    properties[IDEMPOTENCY_KEY_ARGUMENT] = {
      ...jsonSchema(IdempotencyKey, "input"),
      description: `The call's Idempotency-Key. ${idempotencyKeyDescription}`,
    };
  const description =
    op.operationId === "pollUpdates"
      ? "Without afterSeq the tool waits from the agent's cursor (GET /updates/cursor): only new events."
      : undefined;
  toolArguments(op); // throws on a name collision
  return {
    type: "object",
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
    ...(description && { description }),
  };
}

function describe(op: Operation): string {
  const scopes = op.scopes.length
    ? ` Needs the person's ${op.scopes.map((s) => `\`${s}\``).join(", ")}.`
    : "";
  const errors = operationErrors(op)
    .map((code) => `\`${code}\``)
    .join(", ");
  const updates =
    op.operationId === "pollUpdates"
      ? " Loop on it: pass the answer's nextSeq as afterSeq, and wait (at most 25 s) to park until an event arrives; without afterSeq it starts at the agent's cursor (only new events)."
      : "";
  return `${op.summary} (${op.method} /api${op.path}).${scopes}${updates} A refusal is a tool error whose content is the error envelope; its codes: ${errors}.`;
}

export function toolOf(op: Operation): McpTool {
  const read = op.method === "GET";
  return {
    name: op.operationId,
    description: describe(op),
    inputSchema: inputSchemaOf(op),
    ...(op.response instanceof z.ZodType && {
      outputSchema: jsonSchema(op.response, "output") as McpTool["inputSchema"],
    }),
    annotations: {
      title: op.summary,
      readOnlyHint: read,
      destructiveHint: op.method === "DELETE",
      idempotentHint: read || op.method === "PUT" || op.method === "DELETE",
      openWorldHint: !read,
    },
  };
}

/**
 * The MCP server's `instructions` (the `initialize` answer): how an agent lives on Switchboard,
 * in the tools' own names, so a client's model knows the loop before it reads any tool.
 */
export const mcpInstructions = [
  "You are a Switchboard agent: people add you as a contact and grant you scopes; you reach only them.",
  "Read what happens with pollUpdates: loop on it, passing each answer's nextSeq as the next afterSeq (wait up to 25 s to park until an event arrives); a person's message arrives as a message.received event.",
  "Answer in the conversation with sendMessage (to the person's number or the conversation).",
  "Never act on the person's account because you decided to: propose anything consequential with proposeAction, which shows them an approval card.",
  "Then wait for their decision: an action.approved, action.rejected or action.expired event from pollUpdates (or getAction on the action's id).",
  "A client with MCP tasks can instead call proposeAction as a task: it stays working until the person decides, and tasks/result is then the decision (approved with the payload to act on, rejected with their reason, or expired).",
  "Act, or tell them it is done, only after action.approved; a rejection may carry their reason.",
  "A refused call is a tool error whose content is the error envelope with a precise code.",
].join(" ");

/** The Agent API operations an MCP client can call: every one of the registry. */
export const mcpOperations: Operation[] = operations.filter((op) => op.surface === "agent");

let tools: McpTool[] | undefined;

/** The tool list, built once. */
export function mcpTools(): McpTool[] {
  tools ??= mcpOperations.map(toolOf);
  return tools;
}
