import { z } from "zod";
import { AgentAction } from "./actions";
import { DateTime, QueryInt, QueryNumber } from "./common";
import { EmailMessage } from "./email";
import { AgentMessage } from "./messages";
import { ReminderRecord, TaskRecord } from "./records";
import { AgentScope } from "./scopes";
import { AgentUser } from "./users";
import { agentEventTypes } from "./vocabulary";

/**
 * The event registry: every event type of the spec with its payload. Each type has its full
 * (unmasked) payload and, for the types the spec masks, the masked form an agent receives when
 * the person withheld the read scope; `payload` is what may travel on the wire (either form).
 * The event log stores events by these schemas (`appendEvents` refuses anything else); long-poll,
 * webhook and WebSocket serve the wire form.
 */

/** `accessDenied` of a masked event: the scope withheld and why. */
export const AccessDenied = z.object({ scope: AgentScope, message: z.string() });
export type AccessDenied = z.infer<typeof AccessDenied>;

const deniedFor = <S extends AgentScope>(scope: S) =>
  z.object({ scope: z.literal(scope), message: z.string() });

// ---- message.received ----
export const MessageReceivedFull = z.object({
  conversationId: z.string(),
  from: AgentUser,
  /** A voice note carries `audio`, never its transcript (that comes as `message.transcript`). */
  message: AgentMessage,
});
export const MessageReceivedMasked = z.object({
  conversationId: z.string(),
  from: AgentUser,
  message: z.null(),
  accessDenied: deniedFor("messages:read"),
});
export const MessageReceivedPayload = z.union([MessageReceivedFull, MessageReceivedMasked]);
export type MessageReceivedPayload = z.infer<typeof MessageReceivedPayload>;

// ---- message.transcript ----
/**
 * `transcript` is null when transcription gave up on the note. Strict: a masked payload (null
 * too, with `accessDenied`) must never read as a full one.
 */
export const MessageTranscriptFull = z.strictObject({
  conversationId: z.string(),
  messageId: z.string(),
  from: AgentUser,
  transcript: z.string().nullable(),
});
export const MessageTranscriptMasked = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  from: AgentUser,
  transcript: z.null(),
  accessDenied: deniedFor("messages:read"),
});
// Masked first: a full payload's transcript may be null too, and only `accessDenied` tells them apart.
export const MessageTranscriptPayload = z.union([MessageTranscriptMasked, MessageTranscriptFull]);
export type MessageTranscriptPayload = z.infer<typeof MessageTranscriptPayload>;

// ---- contact.added ----
/** A person added the agent; `scopes` is their consent grant. */
export const ContactAddedPayload = z.object({ user: AgentUser, scopes: z.array(AgentScope) });
export type ContactAddedPayload = z.infer<typeof ContactAddedPayload>;

// ---- action.approved / action.rejected / action.expired ----
/** `action.editedPayload` is set when the person edited (use it instead of `payload`). */
export const ActionEventPayload = z.object({ conversationId: z.string(), action: AgentAction });
export type ActionEventPayload = z.infer<typeof ActionEventPayload>;

// ---- email.received ----
/** The email as the inbox shows it (`GET /emails/{threadId}`); the spec leaves its fields open. */
export const EventEmail = EmailMessage;
export const EmailReceivedFull = z.object({
  threadId: z.string(),
  subject: z.string().nullable(),
  from: AgentUser,
  email: EventEmail,
});
/**
 * What the log keeps of an `email.received`: the full payload and whether the agent started the
 * thread (its subject then stays when the email is masked). The flag never reaches the wire.
 */
export const EmailReceivedStored = EmailReceivedFull.extend({ agentStartedThread: z.boolean() });
export type EmailReceivedStored = z.infer<typeof EmailReceivedStored>;
/** Without `emails:read`: no email, and `subject` is null too unless the agent started the thread. */
export const EmailReceivedMasked = z.object({
  threadId: z.string(),
  subject: z.string().nullable(),
  from: AgentUser,
  email: z.null(),
  accessDenied: deniedFor("emails:read"),
});
export const EmailReceivedPayload = z.union([EmailReceivedFull, EmailReceivedMasked]);
export type EmailReceivedPayload = z.infer<typeof EmailReceivedPayload>;

// ---- task.due / reminder.due (not sent without the read grant) ----
export const TaskDuePayload = z.object({ user: AgentUser, task: TaskRecord });
export type TaskDuePayload = z.infer<typeof TaskDuePayload>;
export const ReminderDuePayload = z.object({ user: AgentUser, reminder: ReminderRecord });
export type ReminderDuePayload = z.infer<typeof ReminderDuePayload>;

// ---- call.ended (not sent without calls:read) ----
/** The shared transcript is capped at 32 KB. */
export const MAX_CALL_TRANSCRIPT_BYTES = 32 * 1024;
export const CallEndedPayload = z.object({
  callId: z.string(),
  user: AgentUser,
  participants: z.array(AgentUser),
  isGroup: z.boolean(),
  startedAt: DateTime,
  endedAt: DateTime,
  /** Seconds. */
  duration: z.number().int().min(0),
  /** That person's own summary; null when the call could not be transcribed. */
  summary: z.string().nullable(),
  transcript: z.string().nullable(),
  transcriptTruncated: z.boolean(),
});
export type CallEndedPayload = z.infer<typeof CallEndedPayload>;

// ---- webhook.test ----
/** The owner's "Send test event" from the console: delivered once, never in the event log (seq 0). */
export const WebhookTestPayload = z.object({ test: z.literal(true), message: z.string() });
export type WebhookTestPayload = z.infer<typeof WebhookTestPayload>;

interface EventEntry {
  summary: string;
  /** The person's scope the event depends on; null when it needs none. */
  scope: AgentScope | null;
  /** Without that scope: the event is masked, or not sent at all. */
  withheld: "masked" | "not_sent" | null;
  full: z.ZodType;
  masked: z.ZodType | null;
  payload: z.ZodType;
}

const entry = <const E extends EventEntry>(e: E) => e;
const unmasked = <P extends z.ZodType>(payload: P) => ({ full: payload, masked: null, payload });

export const eventRegistry = {
  "message.received": entry({
    summary: "Someone sent the agent a 1:1 message",
    scope: "messages:read",
    withheld: "masked",
    full: MessageReceivedFull,
    masked: MessageReceivedMasked,
    payload: MessageReceivedPayload,
  }),
  "message.transcript": entry({
    summary: "A voice note's transcript is ready (always after its message.received)",
    scope: "messages:read",
    withheld: "masked",
    full: MessageTranscriptFull,
    masked: MessageTranscriptMasked,
    payload: MessageTranscriptPayload,
  }),
  "contact.added": entry({
    summary: "A person added the agent; scopes is their consent grant",
    scope: null,
    withheld: null,
    ...unmasked(ContactAddedPayload),
  }),
  "action.approved": entry({
    summary: "A proposal was approved (for a skill, action.execution reports the result)",
    scope: null,
    withheld: null,
    ...unmasked(ActionEventPayload),
  }),
  "action.rejected": entry({
    summary: "A proposal was rejected",
    scope: null,
    withheld: null,
    ...unmasked(ActionEventPayload),
  }),
  "action.expired": entry({
    summary: "Nobody decided a proposal before expiresAt; treat it as rejected",
    scope: null,
    withheld: null,
    ...unmasked(ActionEventPayload),
  }),
  "email.received": entry({
    summary: "Someone emailed the agent (a new thread or a reply)",
    scope: "emails:read",
    withheld: "masked",
    full: EmailReceivedFull,
    masked: EmailReceivedMasked,
    payload: EmailReceivedPayload,
  }),
  "task.due": entry({
    summary: "A task of a person who granted tasks:read came due",
    scope: "tasks:read",
    withheld: "not_sent",
    ...unmasked(TaskDuePayload),
  }),
  "reminder.due": entry({
    summary: "A reminder of a person who granted reminders:read came due",
    scope: "reminders:read",
    withheld: "not_sent",
    ...unmasked(ReminderDuePayload),
  }),
  "call.ended": entry({
    summary: "A call of a person who granted calls:read ended and its summaries are written",
    scope: "calls:read",
    withheld: "not_sent",
    ...unmasked(CallEndedPayload),
  }),
  "webhook.test": entry({
    summary: "A test delivery the agent's owner sent from the console (seq 0, never in the log)",
    scope: null,
    withheld: null,
    ...unmasked(WebhookTestPayload),
  }),
} as const satisfies Record<(typeof agentEventTypes)[number], EventEntry>;

export type AgentEventType = keyof typeof eventRegistry;
export const AgentEventType = z.enum(agentEventTypes);

/** A type's payload as it travels (full, or masked where the spec masks it). */
export type EventPayload<T extends AgentEventType> = z.infer<(typeof eventRegistry)[T]["payload"]>;
/** A type's payload with nothing withheld. */
export type FullEventPayload<T extends AgentEventType> = z.infer<(typeof eventRegistry)[T]["full"]>;

/** The envelope of one event type (each written out: a generic lookup would widen the payload). */
const envelope = <T extends AgentEventType, P extends z.ZodType>(type: T, payload: P) =>
  z.object({
    id: z.string(),
    seq: z.number().int(),
    type: z.literal(type),
    ts: DateTime,
    agentId: z.string(),
    payload,
  });

/** Every event travels in this envelope over long-poll, webhook and WebSocket, by `type`. */
export const AgentEvent = z.discriminatedUnion("type", [
  envelope("message.received", MessageReceivedPayload),
  envelope("message.transcript", MessageTranscriptPayload),
  envelope("contact.added", ContactAddedPayload),
  envelope("action.approved", ActionEventPayload),
  envelope("action.rejected", ActionEventPayload),
  envelope("action.expired", ActionEventPayload),
  envelope("email.received", EmailReceivedPayload),
  envelope("task.due", TaskDuePayload),
  envelope("reminder.due", ReminderDuePayload),
  envelope("call.ended", CallEndedPayload),
  envelope("webhook.test", WebhookTestPayload),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;

/** One event of the given type, as appended to the log: its agent, type and payload. */
export type NewAgentEvent<T extends AgentEventType = AgentEventType> = {
  [K in T]: { agentId: string; type: K; payload: EventPayload<K> };
}[T];

/**
 * Checks an event about to be written against its type's schema: the issues, or null when it
 * matches. The payload itself is stored as given (parsing would drop fields the reader may use).
 */
export function eventIssues(event: { type: string; payload: unknown }): string | null {
  const known = eventRegistry[event.type as AgentEventType];
  if (!known) return `unknown event type ${JSON.stringify(event.type)}`;
  const result = known.payload.safeParse(event.payload);
  if (result.success) return null;
  return result.error.issues
    .map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`)
    .join("; ");
}

export const AgentUpdatesQuery = z.strictObject({
  afterSeq: QueryInt.optional().default(0),
  limit: QueryInt.pipe(z.number().min(1, "must be 1-100").max(100, "must be 1-100"))
    .optional()
    .default(100),
  wait: QueryNumber.optional().default(0),
});
export type AgentUpdatesQuery = z.infer<typeof AgentUpdatesQuery>;

export const AgentUpdatesResponse = z.object({
  events: z.array(AgentEvent),
  nextSeq: z.number().int(),
});
export type AgentUpdatesResponse = z.infer<typeof AgentUpdatesResponse>;

export const AgentCursorResponse = z.object({ seq: z.number().int() });
export type AgentCursorResponse = z.infer<typeof AgentCursorResponse>;
