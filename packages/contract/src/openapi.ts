import { z } from "zod";
import {
  ActionRejection,
  AgentAction,
  AgentActionExecution,
  AgentActionState,
  AgentPlatformSkill,
  RejectionChoice,
} from "./actions";
import { AgentConversation, Initiation } from "./conversations";
import { DevMe, DevSelfMessage } from "./developer";
import { ApiError } from "./errors";
import {
  AccessDenied,
  ActionEventPayload,
  AgentEvent,
  type AgentEventType,
  eventRegistry,
} from "./events";
import { eventExamples, maskedEventExamples } from "./examples";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyDescription,
  takesIdempotencyKey,
} from "./idempotency";
import { AgentMessage, AgentMessageType, Reaction } from "./messages";
import { edgeErrors, errorResponses, rateHeaders } from "./openapi/errors";
import { requestExamples, responseExamples } from "./openapi/examples";
import { type Json, ref } from "./openapi/json";
import { type ServiceLimits, specLimits } from "./openapi/limits";
import { description, devDescription, tagDescriptions } from "./openapi/prose";
import { type Operation, operations } from "./operations";
import { EventRecord, NoteRecord, ReminderRecord, TaskRecord } from "./records";
import { AgentScope } from "./scopes";
import { ClientFrame, ServerFrame } from "./stream";
import { AgentMe, AgentUser } from "./users";
import { agentEventTypes } from "./vocabulary";
import { AgentWebhook, AgentWebhookWithSecret } from "./webhooks";

export { type ServiceLimits, specLimits } from "./openapi/limits";

/**
 * The OpenAPI 3.1 document of both APIs, generated from the registries: each operation with its
 * parameters, body, success and every error it may answer (the envelope, its codes per status),
 * the event payloads as components, and one `webhooks` entry per event type with the signature
 * headers. The reference page at `/docs` renders it; `GET …/openapi.json` serves it.
 */

const pascal = (text: string) =>
  text.replace(/(^|[._-])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());

/** Named shapes: each becomes a component, and every use of it a `$ref`. */
const named: [z.ZodType, string][] = [
  [ApiError, "ApiError"],
  [AgentUser, "AgentUser"],
  [AgentMe, "AgentMe"],
  [AgentScope, "AgentScope"],
  [Initiation, "Initiation"],
  [AgentConversation, "AgentConversation"],
  [AgentMessageType, "AgentMessageType"],
  [AgentMessage, "AgentMessage"],
  [Reaction, "Reaction"],
  [AgentActionState, "AgentActionState"],
  [AgentPlatformSkill, "AgentPlatformSkill"],
  [AgentActionExecution, "AgentActionExecution"],
  [RejectionChoice, "RejectionChoice"],
  [ActionRejection, "AgentActionRejection"],
  [AgentAction, "AgentAction"],
  [AgentWebhook, "AgentWebhook"],
  [AgentWebhookWithSecret, "AgentWebhookWithSecret"],
  [TaskRecord, "TaskRecord"],
  [ReminderRecord, "ReminderRecord"],
  [EventRecord, "EventRecord"],
  [NoteRecord, "NoteRecord"],
  [DevMe, "DevMe"],
  [DevSelfMessage, "DevSelfMessage"],
  [AccessDenied, "AccessDenied"],
  [ActionEventPayload, "ActionEventPayload"],
  [ServerFrame, "StreamServerFrame"],
  [ClientFrame, "StreamClientFrame"],
  [AgentEvent, "AgentEvent"],
];

/** Component ids of each event type: its wire payload, forms, and envelope. */
const eventIds = (type: AgentEventType) => ({
  payload: `${pascal(type)}Payload`,
  full: `${pascal(type)}Full`,
  masked: `${pascal(type)}Masked`,
  envelope: `${pascal(type)}Event`,
});

function registry(): {
  registry: z.core.$ZodRegistry<{ id: string }>;
  responseIds: Map<string, string>;
} {
  const reg = z.registry<{ id: string }>();
  const add = (schema: z.ZodType, id: string) => {
    if (!reg.has(schema)) reg.add(schema, { id });
  };
  for (const [schema, id] of named) add(schema, id);
  for (const type of agentEventTypes) {
    const entry = eventRegistry[type];
    const ids = eventIds(type);
    if (entry.masked) {
      add(entry.full, ids.full);
      add(entry.masked, ids.masked);
    }
    add(entry.payload, ids.payload);
  }
  for (const option of AgentEvent.options) add(option, eventIds(option.shape.type.value).envelope);
  const responseIds = new Map<string, string>();
  for (const op of operations) {
    if (!(op.response instanceof z.ZodType)) continue;
    add(op.response, `${pascal(op.operationId)}Response`);
    responseIds.set(op.operationId, reg.get(op.response)?.id as string);
  }
  return { registry: reg, responseIds };
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** zod's JSON Schema, tidied for a published document. */
function tidy(node: unknown, output: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => tidy(item, output));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === "$schema" || key === "$id") continue;
    if ((key === "minimum" && value === -SAFE) || (key === "maximum" && value === SAFE)) continue;
    // Responses may gain optional fields within v1 (additive changes), so none is closed.
    if (output && key === "additionalProperties" && value === false) continue;
    out[key] = tidy(value, output);
  }
  return out;
}

/** A query or body schema as the client sends it (defaults optional, query numbers as text). */
function inputSchema(schema: z.ZodType): Json {
  return tidy(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }), false) as Json;
}

/** Query strings carry numbers as text; the document says what they mean. */
function queryParamSchema(schema: Json): Json {
  if (schema.pattern === "^\\d{1,15}$" || schema.pattern === "^\\d{1,3}$") {
    const { pattern: _, ...rest } = schema;
    return { ...rest, type: "integer", minimum: 0 };
  }
  if (schema.pattern === "^\\d{1,9}(\\.\\d{1,6})?$") {
    const { pattern: _, ...rest } = schema;
    return { ...rest, type: "number", minimum: 0 };
  }
  return schema;
}

/** The `Idempotency-Key` header, one reusable parameter referenced by every POST. */
const idempotencyKeyParameter = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  required: false,
  description: idempotencyKeyDescription,
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
  example: "5f0c6a9e-8d47-4a51-9a36-1c2f0e7b9d11",
};

function parameters(op: Operation): Json[] {
  const path: Json[] = Object.keys(op.params.shape).map((name) => ({
    name,
    in: "path",
    required: true,
    schema: { type: "string", minLength: 1 },
  }));
  if (takesIdempotencyKey(op)) path.push({ $ref: "#/components/parameters/IdempotencyKey" });
  if (!op.query) return path;
  const query = inputSchema(op.query);
  const props = (query.properties ?? {}) as Record<string, Json>;
  const required = new Set((query.required ?? []) as string[]);
  return [
    ...path,
    ...Object.entries(props).map(([name, schema]) => ({
      name,
      in: "query",
      required: required.has(name),
      ...(typeof schema.description === "string" && { description: schema.description }),
      schema: queryParamSchema(schema),
    })),
  ];
}

const replayedHeader = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    schema: { type: "string", const: "true" },
    description: "Present when this is the stored first answer to an `Idempotency-Key` retried",
  },
};

function operationObject(op: Operation, responseIds: Map<string, string>): Json {
  const success: Json =
    op.response instanceof z.ZodType
      ? {
          description: op.summary,
          headers: takesIdempotencyKey(op) ? { ...rateHeaders, ...replayedHeader } : rateHeaders,
          content: {
            "application/json": {
              schema: ref(responseIds.get(op.operationId) as string),
              ...(responseExamples[op.operationId] !== undefined && {
                example: responseExamples[op.operationId],
              }),
            },
          },
        }
      : {
          description: `${op.summary}; the bytes in their own type (\`${op.response.binary}\`)`,
          headers: {
            ...rateHeaders,
            "Accept-Ranges": { schema: { type: "string", const: "bytes" } },
          },
          content: {
            [op.response.binary]: {
              schema: { type: "string", contentMediaType: op.response.binary },
            },
          },
        };
  const ranged =
    !(op.response instanceof z.ZodType) && op.response.ranges
      ? { "206": { ...success, description: "The requested byte range (`Range: bytes=…`)" } }
      : {};
  const scopes = op.scopes.length
    ? `\n\nNeeds ${op.surface === "agent" ? "the person's" : "the key's"} ${op.scopes.map((s) => `\`${s}\``).join(", ")}.`
    : "";
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.summary}.${scopes}`,
    tags: [op.tag],
    security: [{ [op.surface === "agent" ? "agentToken" : "developerKey"]: [] }],
    ...(op.scopes.length > 0 && { "x-scopes": op.scopes }),
    parameters: parameters(op),
    ...(op.body && {
      requestBody: {
        required: !op.optionalBody,
        content: {
          "application/json": {
            schema: inputSchema(op.body),
            ...(requestExamples[op.operationId] !== undefined && {
              example: requestExamples[op.operationId],
            }),
          },
        },
      },
    }),
    responses: { [String(op.status)]: success, ...ranged, ...errorResponses(op) },
  };
}

const signatureHeaders = [
  ["X-Svc-Event-Id", "The event id (`evt_…`); deduplicate on it", { type: "string" }],
  ["X-Svc-Event-Type", "The event type", { type: "string" }],
  ["X-Svc-Delivery-Attempt", "Attempt number, from 1", { type: "integer", minimum: 1 }],
  [
    "X-Svc-Signature",
    "`t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'>`; a second `v1=` during rotation",
    { type: "string", pattern: "^t=\\d+(,v1=[0-9a-f]{64})+$" },
  ],
] as const;

function webhooks(): Json {
  return Object.fromEntries(
    agentEventTypes.map((type) => {
      const entry = eventRegistry[type];
      const masked = (maskedEventExamples as Partial<Record<AgentEventType, unknown>>)[type];
      const envelope = (payload: unknown) => ({
        id: "evt_01hx3km1q5r9s3t7v1w5y9z3dd",
        seq: 42,
        type,
        ts: "2026-05-01T09:00:00.000Z",
        agentId: "agt_01hx3kn2r6s0t4v8w2y6z0a4ee",
        payload,
      });
      const needs = entry.scope
        ? entry.withheld === "masked"
          ? ` Without the person's \`${entry.scope}\` it arrives masked (content null, \`accessDenied\` set).`
          : ` Sent only for people who granted \`${entry.scope}\`.`
        : "";
      return [
        type,
        {
          post: {
            operationId: `on${pascal(type)}`,
            summary: type,
            description: `${entry.summary}.${needs} Signed as described under Webhooks; answer 2xx within 10 s.`,
            tags: ["Event types"],
            // Switchboard calls the agent: the signature headers authenticate it, not a scheme.
            security: [],
            parameters: signatureHeaders.map(([name, description, schema]) => ({
              name,
              in: "header",
              required: true,
              description,
              schema,
            })),
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: ref(eventIds(type).envelope),
                  examples: {
                    full: { summary: "Full", value: envelope(eventExamples[type]) },
                    ...(masked !== undefined && {
                      masked: { summary: "Masked", value: envelope(masked) },
                    }),
                  },
                },
              },
            },
            responses: {
              "2XX": { description: "Received; the delivery succeeded" },
              "410": { description: "Gone: the event is dead and the webhook is disabled" },
              default: { description: "Any other answer (or none in 10 s) is retried" },
            },
          },
        },
      ];
    }),
  );
}

/** Which API a document describes; `"all"`: both, in one (the registry tests read that one). */
export type OpenApiScope = "agent" | "dev" | "all";

/** Components nothing in the document reaches are left out (each document carries its own). */
function reachable(document: Json, schemas: Record<string, Json>): Record<string, Json> {
  const keep = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node as Json)) {
      if (key === "$ref" && typeof value === "string") {
        const id = value.replace("#/components/schemas/", "");
        if (!keep.has(id) && schemas[id]) {
          keep.add(id);
          visit(schemas[id]);
        }
      } else visit(value);
    }
  };
  visit(document);
  return Object.fromEntries(Object.entries(schemas).filter(([id]) => keep.has(id)));
}

const securitySchemes = {
  agentToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "agent:<token>",
    description:
      "Agent API. Send `Authorization: Bearer agent:<token>`: the bearer value is the token minted in the console **with its `agent:` prefix** (for example `agent:sbat_…`), so a generated client's bearer token setting takes `agent:sbat_…`.",
  },
  developerKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "dev:<key>",
    description:
      "Developer API. Send `Authorization: Bearer dev:<key>`: the bearer value is the key **with its `dev:` prefix** (for example `dev:sbdk_…`).",
  },
} as const;

/**
 * The OpenAPI document of one API (`agent`, with its webhooks; `dev`), or of both (`all`).
 * `limits` fills the Limits table (the spec's values by default).
 */
export function buildOpenApi(
  options: { limits?: ServiceLimits; version?: string; api?: OpenApiScope } = {},
): Json {
  const api = options.api ?? "all";
  const limits = options.limits ?? specLimits;
  const included = operations.filter((op) => api === "all" || op.surface === api);
  const { registry: reg, responseIds } = registry();
  const components = z.toJSONSchema(reg, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
  }) as { schemas: Record<string, Json> };
  const schemas = tidy(components.schemas, true) as Record<string, Json>;
  for (const type of agentEventTypes) {
    const schema = schemas[eventIds(type).payload];
    if (schema) schema.examples = [eventExamples[type]];
  }
  const paths: Record<string, Json> = {};
  for (const op of included) {
    paths[op.path] = {
      ...paths[op.path],
      [op.method.toLowerCase()]: operationObject(op, responseIds),
    };
  }
  const spec = (path: string) => ({
    get: {
      operationId: path.startsWith("/agent") ? "getAgentOpenApi" : "getDevOpenApi",
      summary: "This OpenAPI document",
      tags: ["Service"],
      security: [],
      responses: {
        "200": { description: "OpenAPI 3.1", content: { "application/json": {} } },
        ...edgeErrors(),
      },
    },
  });
  if (api !== "dev") paths["/agent/v1/openapi.json"] = spec("/agent/v1/openapi.json");
  if (api !== "agent") paths["/v1/openapi.json"] = spec("/v1/openapi.json");
  paths["/healthz"] = {
    get: {
      operationId: "getHealth",
      summary: "Health check",
      tags: ["Service"],
      security: [],
      responses: {
        "200": {
          description: "Healthy",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { status: { type: "string" } },
                required: ["status"],
              },
            },
          },
        },
        ...edgeErrors(),
        "503": { description: "Unhealthy (the database is unreachable)" },
      },
    },
  };
  const withHooks = api !== "dev";
  const tags = [
    ...new Set([...included.map((op) => op.tag), "Service", ...(withHooks ? ["Event types"] : [])]),
  ];
  const titles = {
    all: "Switchboard Agent Platform API",
    agent: "Switchboard Agent API",
    dev: "Switchboard Developer API",
  };
  const body: Json = {
    openapi: "3.1.0",
    info: {
      title: titles[api],
      version: options.version ?? "0.2.0",
      description: api === "dev" ? devDescription(limits) : description(limits),
      // No open-source licence: the package is private (all rights reserved).
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/api", description: "This instance" }],
    tags: tags.map((name) => ({ name, description: tagDescriptions[name] ?? "" })),
    paths,
    ...(withHooks && { webhooks: webhooks() }),
  };
  const used = api === "all" ? schemas : reachable(body, schemas);
  return {
    ...body,
    components: {
      schemas: used,
      parameters: { IdempotencyKey: idempotencyKeyParameter },
      securitySchemes:
        api === "all"
          ? securitySchemes
          : api === "agent"
            ? { agentToken: securitySchemes.agentToken }
            : { developerKey: securitySchemes.developerKey },
    },
  };
}
