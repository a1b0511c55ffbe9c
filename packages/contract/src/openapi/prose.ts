import { z } from "zod";
import { eventRegistry } from "../events";
import { scopeSentence } from "../scope-words";
import { ClientFrame, ServerFrame } from "../stream";
import { agentEventTypes, agentScopes } from "../vocabulary";
import type { Json } from "./json";
import type { ServiceLimits } from "./limits";

/** The document's prose: the overview of each API (scopes, events, stream, webhooks, limits) and its tags. */

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

export function description(limits: ServiceLimits): string {
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

export const tagDescriptions: Record<string, string> = {
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

export function devDescription(limits: ServiceLimits): string {
  return [
    "The **Developer API** (`/v1`) of Switchboard: a developer key's owner posts into their own",
    "self chat. It takes `Authorization: Bearer dev:<key>`. Every error answers the envelope",
    "`{ error: { code, message, issues?, retryAfterSeconds? } }`. The Agent API has its own",
    "document at `/api/agent/v1/openapi.json`.",
    "",
    `Limit: ${limits.devMessagesPerMin} messages per minute per key.`,
  ].join("\n");
}
