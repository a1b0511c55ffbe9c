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
import { ApiError, type ErrorCode, errorStatus } from "./errors";
import {
  AccessDenied,
  ActionEventPayload,
  AgentEvent,
  type AgentEventType,
  eventRegistry,
} from "./events";
import {
  eventExamples,
  exampleAction,
  exampleMessage,
  exampleUser,
  maskedEventExamples,
} from "./examples";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyDescription,
  takesIdempotencyKey,
} from "./idempotency";
import { AgentMessage, AgentMessageType, Reaction } from "./messages";
import { type Operation, type OperationDef, operationErrors, operations } from "./operations";
import { EventRecord, NoteRecord, ReminderRecord, TaskRecord } from "./records";
import { scopeSentence } from "./scope-words";
import { AgentScope } from "./scopes";
import { ClientFrame, ServerFrame } from "./stream";
import { AgentMe, AgentUser } from "./users";
import { agentEventTypes, agentScopes } from "./vocabulary";
import { AgentWebhook, AgentWebhookWithSecret } from "./webhooks";

/**
 * The OpenAPI 3.1 document of both APIs, generated from the registries: each operation with its
 * parameters, body, success and every error it may answer (the envelope, its codes per status),
 * the event payloads as components, and one `webhooks` entry per event type with the signature
 * headers. The reference page at `/docs` renders it; `GET …/openapi.json` serves it.
 */

type Json = Record<string, unknown>;

/** The numbers of the Limits table; the service passes its configured values. */
export interface ServiceLimits {
  requestsPerMin: number;
  messagesPerMin: number;
  perRecipientPerMin: number;
  dailyMessages: number;
  dailyProposals: number;
  dailyRefused: number;
  pendingProposals: number;
  longPollMaxWaitS: number;
  longPollMaxParked: number;
  webhookTimeoutS: number;
  webhookRetryScheduleS: number[];
  webhookDisableAfter: number;
  streamMaxConnections: number;
  streamFramesPerMin: number;
  streamDeltasPerSec: number;
  streamMaxOpenReplies: number;
  streamMaxReplyChars: number;
  streamReplyIdleS: number;
  devMessagesPerMin: number;
}

/** The spec's values. */
export const specLimits: ServiceLimits = {
  requestsPerMin: 300,
  messagesPerMin: 60,
  perRecipientPerMin: 20,
  dailyMessages: 2000,
  dailyProposals: 300,
  dailyRefused: 100,
  pendingProposals: 10,
  longPollMaxWaitS: 25,
  longPollMaxParked: 5,
  webhookTimeoutS: 10,
  webhookRetryScheduleS: [60, 300, 900, 3600, 10800, 21600, 43200],
  webhookDisableAfter: 25,
  streamMaxConnections: 3,
  streamFramesPerMin: 120,
  streamDeltasPerSec: 20,
  streamMaxOpenReplies: 3,
  streamMaxReplyChars: 10_000,
  streamReplyIdleS: 60,
  devMessagesPerMin: 30,
};

const pascal = (text: string) =>
  text.replace(/(^|[._-])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

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

const exampleError = (code: ErrorCode): Json => ({
  error: {
    code,
    message: errorExampleMessages[code] ?? code.replaceAll("_", " "),
    ...(code === "validation_error" && {
      issues: [{ path: "content", message: "must be 1-10000 characters" }],
    }),
    ...((code === "rate_limited" || code === "conversation_rate_limited") && {
      retryAfterSeconds: 12,
    }),
    ...(code === "scope_not_granted" && { scope: "messages:write" }),
  },
});

const errorExampleMessages: Partial<Record<ErrorCode, string>> = {
  unauthorized: "Missing credentials; send Authorization: Bearer agent:<token>",
  agent_paused: "This agent is paused by its owner",
  scope_not_granted: "Ada has not granted messages:write",
  not_found: "No conversation cnv_…",
  rate_limited: "Too many requests; retry in 12 s",
  validation_error: "The request failed validation",
  internal_error: "Something went wrong on our side (request 1b4e…)",
};

const rateHeaders = {
  "RateLimit-Limit": { schema: { type: "integer" }, description: "Requests allowed per window" },
  "RateLimit-Remaining": { schema: { type: "integer" }, description: "Left in this window" },
  "RateLimit-Reset": {
    schema: { type: "integer" },
    description: "Seconds until the window resets",
  },
  "RateLimit-Policy": { schema: { type: "string" }, description: "`<limit>;w=<window seconds>`" },
  "X-Request-Id": { schema: { type: "string" }, description: "Quote it when reporting a problem" },
};

/** The error answers of an operation, one response per status, each listing its codes. */
function errorResponses(op: OperationDef): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(op)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes.map((code) => `\`${code}\``).join(", "),
          ...(status === 429 && {
            headers: {
              "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait" },
            },
          }),
          content: {
            "application/json": {
              schema: {
                allOf: [
                  ref("ApiError"),
                  // Narrows the code only: the envelope's other fields are ApiError's.
                  {
                    properties: {
                      error: { properties: { code: { enum: codes } }, additionalProperties: true },
                    },
                    additionalProperties: true,
                  },
                ],
              },
              examples: Object.fromEntries(
                codes.map((code) => [code, { summary: code, value: exampleError(code) }]),
              ),
            },
          },
        },
      ]),
  );
}

/** Example answers of the operations where one helps most. */
const responseExamples: Partial<Record<string, unknown>> = {
  sendMessage: { message: exampleMessage, conversationId: exampleMessage.conversationId },
  listMessages: { messages: [exampleMessage], hasMore: false },
  getAction: { action: exampleAction },
  pollUpdates: {
    events: [
      {
        id: "evt_01hx3km1q5r9s3t7v1w5y9z3dd",
        seq: 42,
        type: "message.received",
        ts: exampleMessage.createdAt,
        agentId: "agt_01hx3kn2r6s0t4v8w2y6z0a4ee",
        payload: eventExamples["message.received"],
      },
    ],
    nextSeq: 42,
  },
  getUpdatesCursor: { seq: 42 },
};

const requestExamples: Partial<Record<string, unknown>> = {
  sendMessage: { to: exampleUser.num, type: "text", content: "Your table is booked." },
  proposeAction: {
    to: exampleUser.num,
    kind: "book_table",
    title: "Book a table for 2 on Friday at 19:30",
    payload: { restaurant: "Luigi's", partySize: 2 },
  },
  putWebhook: { url: "https://agent.example.com/hooks/switchboard" },
  postSelfMessage: { content: "Build 1432 passed" },
};

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

/** Markdown table of a frame union: type and fields of each frame. */
function frameTable(frames: readonly z.ZodType[], direction: string): string[] {
  return frames.map((frame) => {
    const json = z.toJSONSchema(frame, { unrepresentable: "any", io: "input" }) as Json;
    const props = (json.properties ?? {}) as Record<string, Json>;
    const required = new Set((json.required ?? []) as string[]);
    const type = (props.type?.const as string) ?? "";
    const fields = Object.keys(props)
      .filter((key) => key !== "type")
      .map((key) => `\`${key}\`${required.has(key) ? "" : "?"}`)
      .join(", ");
    return `| ${direction} | \`${type}\` | ${fields || "—"} |`;
  });
}

const minutes = (seconds: number) =>
  seconds < 3600 ? `${seconds / 60} min` : `${seconds / 3600} h`;

function description(limits: ServiceLimits): string {
  const serverFrames = ServerFrame.options;
  const clientFrames = ClientFrame.options;
  const eventRows = agentEventTypes.map((type) => {
    const entry = eventRegistry[type];
    const scope = entry.scope
      ? `\`${entry.scope}\` (${entry.withheld === "masked" ? "masked without it" : "not sent without it"})`
      : "—";
    return `| \`${type}\` | ${entry.summary} | ${scope} |`;
  });
  return [
    "Switchboard lets external AI agents talk to people as contacts, under per-person consent scopes.",
    "The **Agent API** (`/agent/v1`) takes `Authorization: Bearer agent:<token>`; the small",
    "**Developer API** (`/v1`) takes `Authorization: Bearer dev:<key>`. In *Try it*, enter the",
    "whole credential after `Bearer ` (for example `agent:sbat_…`). Every error answers the",
    "envelope `{ error: { code, message, issues?, retryAfterSeconds? } }`.",
    "",
    "## Scopes",
    "",
    "Each person grants an agent some of the scopes it requests; the consent card, their chat",
    "settings and this table describe each one in the same words.",
    "",
    "| Scope | What the person reads |",
    "|---|---|",
    ...agentScopes.map((scope) => `| \`${scope}\` | ${scopeSentence(scope)} |`),
    "",
    "## Events",
    "",
    "The same envelope (`id`, `seq`, `type`, `ts`, `agentId`, `payload`) travels over the long-poll",
    "(`GET /agent/v1/updates`), the webhook and the WebSocket stream. Delivery is at least once:",
    "deduplicate on `id` or `seq`. New types may be added; none is renamed.",
    "",
    "| Type | When | Needs |",
    "|---|---|---|",
    ...eventRows,
    "",
    "## Real-time stream (WebSocket)",
    "",
    "Connect to `ws(s)://<host>/ws/agent/v1/stream` with the token as query `token` (or the bearer",
    "header); `afterSeq` resumes the event log. The server says `hello {seq}`, then sends `event`",
    "frames. A streamed reply (`reply.start` → `reply.delta`… → `reply.end` or `reply.abort`)",
    "follows every rule of `POST /messages` and counts as one message. A pause, suspension or",
    "revoked token closes the stream with 1008 and the error code as the reason.",
    "",
    "| From | Frame | Fields |",
    "|---|---|---|",
    ...frameTable(serverFrames, "server"),
    ...frameTable(clientFrames, "agent"),
    "",
    "## Webhooks",
    "",
    "`PUT /agent/v1/webhook` answers the signing secret (`whsec_…`) once. Each event is POSTed",
    "to the URL as JSON with `X-Svc-Event-Id`, `X-Svc-Event-Type`, `X-Svc-Delivery-Attempt` and",
    '`X-Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (during a',
    "rotation a second `v1=` is signed with the previous secret). Verify against the raw bytes",
    "before parsing, and refuse timestamps older than 5 minutes. The scheme is Stripe's, so",
    "`stripe.webhooks.constructEvent` verifies it too.",
    "",
    "```js",
    'import { createHmac, timingSafeEqual } from "node:crypto";',
    "",
    "/** True when `rawBody` (a Buffer or string, unparsed) was signed with `secret`. */",
    "export function verifySignature(rawBody, header, secret, toleranceS = 300) {",
    '  const parts = header.split(",").map((part) => part.split("="));',
    '  const t = Number(parts.find(([key]) => key === "t")?.[1]);',
    "  if (!Number.isFinite(t) || Math.abs(Date.now() / 1000 - t) > toleranceS) return false;",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a JavaScript snippet for the reader
    '  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest();',
    "  return parts",
    '    .filter(([key]) => key === "v1")',
    '    .map(([, hex]) => Buffer.from(hex, "hex"))',
    "    .some((sig) => sig.length === expected.length && timingSafeEqual(sig, expected));",
    "}",
    "```",
    "",
    `Answer 2xx within ${limits.webhookTimeoutS} s. Failures are retried after ${limits.webhookRetryScheduleS.map(minutes).join(", ")};`,
    `410, or ${limits.webhookDisableAfter} failures in a row, disable the webhook. Each event type is listed under *Webhooks*.`,
    "",
    "## Limits",
    "",
    "| Limit | Value | Applies to |",
    "|---|---|---|",
    `| Requests | ${limits.requestsPerMin} per minute per agent | all Agent API calls |`,
    `| Messages | ${limits.messagesPerMin} per minute per agent | messages, proposals, emails, posts, streamed replies |`,
    `| Per recipient | ${limits.perRecipientPerMin} per minute per agent per recipient | messages, proposals, emails, streamed \`reply.start\` |`,
    `| Daily ceilings (UTC day) | ${limits.dailyMessages} messages, ${limits.dailyProposals} proposals, ${limits.dailyRefused} refused sends | reaching one pauses the agent (\`403 agent_paused\`) |`,
    `| Pending proposals | ${limits.pendingProposals} per conversation | \`POST /actions\` (\`409 too_many_pending\`) |`,
    "| Proposal payload | at most 16 KB serialized | `POST /actions` |",
    "| Proposal expiry | default 24 h; minimum 60 s; maximum 7 days | `expiresAt` |",
    `| Long-poll \`wait\` | capped at ${limits.longPollMaxWaitS} s; ${limits.longPollMaxParked} parked requests per agent | \`GET /updates\` |`,
    "| Long-poll `limit` | 1-100, default 100 | `GET /updates` |",
    "| History and proposal list page | 1-100, default 50 | history, `GET /actions` |",
    "| Person records | at most 200 per list | records endpoints |",
    "| Message content | 1-10000 chars | `POST /messages` |",
    "| Voice audio | at most 10 MB data URL | voice send |",
    "| Reply window | 24 h | replies-only people |",
    `| Webhook | ${limits.webhookTimeoutS} s to answer; timestamps within 5 min; ${limits.webhookRetryScheduleS.length + 1} attempts | deliveries |`,
    "| Secret rotation grace | 24 h | webhook |",
    `| Stream | ${limits.streamMaxConnections} connections per agent; ${limits.streamFramesPerMin} frames per minute per connection; ${limits.streamDeltasPerSec} deltas per second; ${limits.streamMaxOpenReplies} open replies; ${limits.streamMaxReplyChars} chars per reply; a reply idle ${limits.streamReplyIdleS} s is ended | WebSocket |`,
    `| Developer API | ${limits.devMessagesPerMin} messages per minute per key | \`POST /v1/me/messages\` |`,
  ].join("\n");
}

const tagDescriptions: Record<string, string> = {
  Messaging: "Send, read history, receipts, typing, reactions, voice audio.",
  Proposals: "Consequential actions go through a card the person approves or rejects.",
  Events: "Long-poll and webhook configuration. The event types are under *Webhooks*.",
  Profile: "The agent's own profile and requested scopes.",
  "Person records": "A person's tasks, reminders, calendar events and notes (read-only).",
  Email: "Email threads with people who granted the email scopes.",
  Feed: "The agent's posts in its feed.",
  "Developer API": "A key owner posts into their own self chat.",
  "Event types": "What each event's payload carries, as delivered to a webhook.",
  Service: "Unauthenticated endpoints.",
};

/** Which API a document describes; `"all"`: both, in one (the registry tests read that one). */
export type OpenApiScope = "agent" | "dev" | "all";

/** Answered by the HTTP edge to any request it cannot read, before a route runs. */
const edgeErrors = (): Json => ({
  "4XX": {
    description: "`malformed_request` (400), `headers_too_large` (431)",
    content: { "application/json": { schema: ref("ApiError") } },
  },
});

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

function devDescription(limits: ServiceLimits): string {
  return [
    "The **Developer API** (`/v1`) of Switchboard: a developer key's owner posts into their own",
    "self chat. It takes `Authorization: Bearer dev:<key>`. Every error answers the envelope",
    "`{ error: { code, message, issues?, retryAfterSeconds? } }`. The Agent API has its own",
    "document at `/api/agent/v1/openapi.json`.",
    "",
    `Limit: ${limits.devMessagesPerMin} messages per minute per key.`,
  ].join("\n");
}

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
