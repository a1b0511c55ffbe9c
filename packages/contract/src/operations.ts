import { z } from "zod";
import { AgentAction, AgentListActionsQuery, AgentProposeActionRequest } from "./actions";
import {
  AgentConversationsQuery,
  AgentConversationsResponse,
  AgentHistoryQuery,
  AgentHistoryResponse,
  AgentReadRequest,
  AgentTypingRequest,
  OkResponse,
} from "./conversations";
import { DevMe, DevPostSelfMessageRequest, DevPostSelfMessageResponse } from "./developer";
import {
  AgentEmailsQuery,
  AgentEmailsResponse,
  AgentEmailThreadQuery,
  AgentEmailThreadResponse,
  AgentReplyEmailRequest,
  AgentReplyEmailResponse,
  AgentSendEmailRequest,
  AgentSendEmailResponse,
} from "./email";
import type { ErrorCode } from "./errors";
import { AgentCursorResponse, AgentUpdatesQuery, AgentUpdatesResponse } from "./events";
import { AgentCreatePostRequest, AgentPost, AgentPostsQuery, AgentPostsResponse } from "./feed";
import { idempotencyErrors, takesIdempotencyKey } from "./idempotency";
import {
  AgentMessage,
  AgentReactionRequest,
  AgentReactionResponse,
  AgentSendMessageRequest,
  AgentSendMessageResponse,
} from "./messages";
import { EventRecord, NoteRecord, ReminderRecord, TaskRecord } from "./records";
import type { AgentScope, DevScope } from "./scopes";
import { AgentMe, AgentUpdateMeRequest } from "./users";
import { AgentWebhook, AgentWebhookWithSecret, PutWebhookRequest } from "./webhooks";

/**
 * The operation registry: every REST operation of the Agent API (`/agent/v1`) and the Developer
 * API (`/v1`), as the spec lists it. Route handlers bind to an entry (`agentRoute(ops.x, …)`), so
 * the path, the credential, input validation, the success status and the response type all come
 * from here; the OpenAPI document and the reference page are generated from it, and the e2e
 * contract checks match every answer to its entry.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
/** `agent`: `Authorization: Bearer agent:<token>`; `dev`: `Bearer dev:<key>`. */
export type ApiSurface = "agent" | "dev";

/** A success answer that is bytes, not JSON (voice audio). */
export interface BinaryResponse {
  binary: string;
  /** The endpoint honours `Range` (206 partial content). */
  ranges: boolean;
}

/** The names in an OpenAPI path template: `/a/{b}/c/{d}` → `"b" | "d"`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamNames<Rest>
  : never;

export interface OperationDef {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form, relative to `{base_url}` (which ends in `/api`). */
  path: string;
  surface: ApiSurface;
  /** Groups operations in the reference (the spec's section). */
  tag: string;
  summary: string;
  /** The person's scopes (Agent API) or the key's scopes (Developer API) it needs. */
  scopes: readonly (AgentScope | DevScope)[];
  query?: z.ZodType;
  body?: z.ZodType;
  /** An empty body is allowed and read as `{}`. */
  optionalBody?: boolean;
  status: 200 | 201;
  response: z.ZodType | BinaryResponse;
  /** The spec's errors for this operation; the surface's own (auth, pause, 429) come on top. */
  errors: readonly ErrorCode[];
}

export type Operation<D extends OperationDef = OperationDef> = D & {
  /** Path parameters, each a non-empty string, named by the path template. */
  params: z.ZodObject<Record<PathParamNames<D["path"]>, z.ZodString>>;
};

/** A registry entry: the definition plus its path parameters' schema, read off the path. */
export function defineOperation<const D extends OperationDef>(def: D): Operation<D> {
  const names = [...def.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const params = z.strictObject(
    Object.fromEntries(names.map((name) => [name, z.string().min(1, "required")])),
  ) as Operation<D>["params"];
  return { ...def, params };
}

/** What a JSON operation answers; `Response` for a binary one. */
export type OperationResult<O extends OperationDef> = O["response"] extends z.ZodType
  ? z.input<O["response"]>
  : Response;

/** Errors every call of a surface may answer, besides its operation's own. */
export const surfaceErrors = {
  agent: [
    "unauthorized",
    "token_revoked",
    "token_expired",
    "agent_paused",
    "rate_limited",
    "internal_error",
  ],
  dev: [
    "unauthorized",
    "key_revoked",
    "key_expired",
    "account_suspended",
    "rate_limited",
    "internal_error",
  ],
} as const satisfies Record<ApiSurface, readonly ErrorCode[]>;

/**
 * Errors that come with taking input: a bad query or body, a body over the size cap or arriving
 * too slowly.
 */
export function inputErrors(op: OperationDef): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (op.query || op.body) codes.push("validation_error");
  if (op.body) codes.push("payload_too_large", "request_timeout");
  return codes;
}

/** Every error code an operation may answer. */
export function operationErrors(op: OperationDef): ErrorCode[] {
  const keyed = takesIdempotencyKey(op) ? idempotencyErrors : [];
  return [...new Set([...inputErrors(op), ...keyed, ...op.errors, ...surfaceErrors[op.surface]])];
}

export const AgentProposeActionResponse = z.object({
  action: AgentAction,
  /** The approval card; its `agentActionId` equals `action.id`. */
  message: AgentMessage,
  conversationId: z.string(),
});
export type AgentProposeActionResponse = z.infer<typeof AgentProposeActionResponse>;
export const AgentActionsResponse = z.object({ actions: z.array(AgentAction) });
export const AgentActionResponse = z.object({ action: AgentAction });
export const AgentWebhookResponse = z.object({ webhook: AgentWebhook.nullable() });
export const AgentDeleteWebhookResponse = z.object({ deleted: z.boolean() });
export const AgentTasksResponse = z.object({ tasks: z.array(TaskRecord) });
export const AgentRemindersResponse = z.object({ reminders: z.array(ReminderRecord) });
export const AgentEventsResponse = z.object({ events: z.array(EventRecord) });
export const AgentNotesResponse = z.object({ notes: z.array(NoteRecord) });

/**
 * Acting in a conversation with a person: the access check's refusals. The spec lists
 * `not_a_contact` for sends; the check answers it on every call once the person removed the
 * agent (still a 403).
 */
const conversationErrors = [
  "forbidden",
  "not_a_contact",
  "scope_not_granted",
  "blocked",
  "not_found",
] as const;
/**
 * A call on a conversation that reaches the person (typing, read marks, reactions): a suspended
 * person's account answers `recipient_suspended`, as a send does; reads do not (decision 0039).
 */
const reachErrors = [...conversationErrors, "recipient_suspended"] as const;
/** Sending toward a person: every refusal of the send path. */
const sendErrors = [
  "not_a_contact",
  "forbidden",
  "scope_not_granted",
  "recipient_suspended",
  "blocked",
  "reply_window_closed",
  "not_found",
  "conversation_rate_limited",
] as const;

/** Emailing a person (a new thread, or a reply): the send path's refusals; threads answer 404, not 403. */
const emailSendErrors = sendErrors.filter((code) => code !== "forbidden");

const records = <T extends string, R extends z.ZodType>(type: T, response: R) =>
  defineOperation({
    operationId: `list${type[0]?.toUpperCase()}${type.slice(1)}` as `list${Capitalize<T>}`,
    method: "GET",
    path: `/agent/v1/conversations/{conversationId}/${type}` as const,
    surface: "agent",
    tag: "Person records",
    summary: `The other participant's ${type}, newest first, at most 200`,
    scopes: [`${type}:read` as AgentScope],
    status: 200,
    response,
    errors: ["forbidden", "scope_not_granted", "not_found"],
  });

export const ops = {
  sendMessage: defineOperation({
    operationId: "sendMessage",
    method: "POST",
    path: "/agent/v1/messages",
    surface: "agent",
    tag: "Messaging",
    summary: "Send a 1:1 message (text, voice, image, video, location, contact, document, sticker)",
    scopes: ["messages:write"],
    body: AgentSendMessageRequest,
    status: 201,
    response: AgentSendMessageResponse,
    errors: [
      "invalid_audio",
      ...sendErrors,
      "media_fetch_failed",
      "unsupported_media",
      "media_too_large",
      "storage_quota_exceeded",
      "tts_failed",
      "tts_unavailable",
    ],
  }),
  listConversations: defineOperation({
    operationId: "listConversations",
    method: "GET",
    path: "/agent/v1/conversations",
    surface: "agent",
    tag: "Messaging",
    summary:
      "The agent's 1:1 conversations, newest activity first, a page at a time (limit, before a conversation id; hasMore)",
    scopes: [],
    query: AgentConversationsQuery,
    status: 200,
    response: AgentConversationsResponse,
    errors: ["not_found"],
  }),
  listMessages: defineOperation({
    operationId: "listMessages",
    method: "GET",
    path: "/agent/v1/conversations/{conversationId}/messages",
    surface: "agent",
    tag: "Messaging",
    summary: "Message history, oldest first within the page; page backwards with before",
    scopes: ["messages:read"],
    query: AgentHistoryQuery,
    status: 200,
    response: AgentHistoryResponse,
    errors: conversationErrors,
  }),
  markRead: defineOperation({
    operationId: "markRead",
    method: "POST",
    path: "/agent/v1/conversations/{conversationId}/read",
    surface: "agent",
    tag: "Messaging",
    summary: "Mark the conversation read up to a message",
    scopes: ["messages:write"],
    body: AgentReadRequest,
    status: 200,
    response: OkResponse,
    errors: reachErrors,
  }),
  setTyping: defineOperation({
    operationId: "setTyping",
    method: "POST",
    path: "/agent/v1/conversations/{conversationId}/typing",
    surface: "agent",
    tag: "Messaging",
    summary: "Show (or clear) the typing indicator",
    scopes: ["messages:write"],
    body: AgentTypingRequest,
    optionalBody: true,
    status: 200,
    response: OkResponse,
    errors: reachErrors,
  }),
  getMessageAudio: defineOperation({
    operationId: "getMessageAudio",
    method: "GET",
    path: "/agent/v1/messages/{messageId}/audio",
    surface: "agent",
    tag: "Messaging",
    summary: "A voice note's audio bytes (supports Range)",
    scopes: ["messages:read"],
    status: 200,
    response: { binary: "audio/*", ranges: true },
    errors: [
      "forbidden",
      "scope_not_granted",
      "message_not_found",
      "no_audio",
      "range_not_satisfiable",
    ],
  }),
  addReaction: defineOperation({
    operationId: "addReaction",
    method: "POST",
    path: "/agent/v1/messages/{messageId}/reactions",
    surface: "agent",
    tag: "Messaging",
    summary: "React to a message",
    scopes: ["messages:write"],
    body: AgentReactionRequest,
    status: 201,
    response: AgentReactionResponse,
    errors: reachErrors,
  }),
  removeReaction: defineOperation({
    operationId: "removeReaction",
    method: "DELETE",
    path: "/agent/v1/messages/{messageId}/reactions/{emoji}",
    surface: "agent",
    tag: "Messaging",
    summary: "Remove the agent's reaction",
    scopes: ["messages:write"],
    status: 200,
    response: OkResponse,
    errors: reachErrors,
  }),
  proposeAction: defineOperation({
    operationId: "proposeAction",
    method: "POST",
    path: "/agent/v1/actions",
    surface: "agent",
    tag: "Proposals",
    summary: "Propose an action; the person approves or rejects it on a card",
    scopes: ["messages:write"],
    body: AgentProposeActionRequest,
    status: 201,
    response: AgentProposeActionResponse,
    errors: ["invalid_expiry", "invalid_payload", ...sendErrors, "too_many_pending"],
  }),
  listActions: defineOperation({
    operationId: "listActions",
    method: "GET",
    path: "/agent/v1/actions",
    surface: "agent",
    tag: "Proposals",
    summary: "The agent's own proposals, newest first",
    scopes: [],
    query: AgentListActionsQuery,
    status: 200,
    response: AgentActionsResponse,
    errors: [],
  }),
  getAction: defineOperation({
    operationId: "getAction",
    method: "GET",
    path: "/agent/v1/actions/{actionId}",
    surface: "agent",
    tag: "Proposals",
    summary: "One proposal",
    scopes: [],
    status: 200,
    response: AgentActionResponse,
    errors: ["not_found"],
  }),
  pollUpdates: defineOperation({
    operationId: "pollUpdates",
    method: "GET",
    path: "/agent/v1/updates",
    surface: "agent",
    tag: "Events",
    summary: "Events after afterSeq, oldest first; waits up to wait seconds for one",
    scopes: [],
    query: AgentUpdatesQuery,
    status: 200,
    response: AgentUpdatesResponse,
    errors: [],
  }),
  getUpdatesCursor: defineOperation({
    operationId: "getUpdatesCursor",
    method: "GET",
    path: "/agent/v1/updates/cursor",
    surface: "agent",
    tag: "Events",
    summary: "The latest event seq (0 if none)",
    scopes: [],
    status: 200,
    response: AgentCursorResponse,
    errors: [],
  }),
  getWebhook: defineOperation({
    operationId: "getWebhook",
    method: "GET",
    path: "/agent/v1/webhook",
    surface: "agent",
    tag: "Events",
    summary: "The agent's webhook, or null",
    scopes: [],
    status: 200,
    response: AgentWebhookResponse,
    errors: [],
  }),
  putWebhook: defineOperation({
    operationId: "putWebhook",
    method: "PUT",
    path: "/agent/v1/webhook",
    surface: "agent",
    tag: "Events",
    summary: "Set the webhook URL (a disabled one stays disabled); answers the signing secret once",
    scopes: [],
    body: PutWebhookRequest,
    status: 200,
    response: AgentWebhookWithSecret,
    errors: [],
  }),
  deleteWebhook: defineOperation({
    operationId: "deleteWebhook",
    method: "DELETE",
    path: "/agent/v1/webhook",
    surface: "agent",
    tag: "Events",
    summary: "Remove the webhook (also when there is none)",
    scopes: [],
    status: 200,
    response: AgentDeleteWebhookResponse,
    errors: [],
  }),
  rotateWebhookSecret: defineOperation({
    operationId: "rotateWebhookSecret",
    method: "POST",
    path: "/agent/v1/webhook/rotate",
    surface: "agent",
    tag: "Events",
    summary: "Issue a new signing secret; the old one also signs for 24 h",
    scopes: [],
    status: 200,
    response: AgentWebhookWithSecret,
    errors: ["not_found"],
  }),
  getMe: defineOperation({
    operationId: "getMe",
    method: "GET",
    path: "/agent/v1/me",
    surface: "agent",
    tag: "Profile",
    summary: "The agent's profile",
    scopes: [],
    status: 200,
    response: AgentMe,
    errors: [],
  }),
  updateMe: defineOperation({
    operationId: "updateMe",
    method: "PATCH",
    path: "/agent/v1/me",
    surface: "agent",
    tag: "Profile",
    summary: "Change the agent's profile or requested scopes",
    scopes: [],
    body: AgentUpdateMeRequest,
    status: 200,
    response: AgentMe,
    errors: [],
  }),
  listEmails: defineOperation({
    operationId: "listEmails",
    method: "GET",
    path: "/agent/v1/emails",
    surface: "agent",
    tag: "Email",
    summary:
      "The agent's 1:1 email threads, newest activity first, a page at a time (limit, before a thread id; hasMore); group threads are not listed; a person's email without emails:read shows content null with accessDenied",
    scopes: [],
    query: AgentEmailsQuery,
    status: 200,
    response: AgentEmailsResponse,
    errors: ["not_found"],
  }),
  sendEmail: defineOperation({
    operationId: "sendEmail",
    method: "POST",
    path: "/agent/v1/emails",
    surface: "agent",
    tag: "Email",
    summary:
      "Start a thread with a person: subject 1-200 chars, content 1-10000; counts as a message",
    scopes: ["emails:write"],
    body: AgentSendEmailRequest,
    status: 201,
    response: AgentSendEmailResponse,
    errors: emailSendErrors,
  }),
  getEmailThread: defineOperation({
    operationId: "getEmailThread",
    method: "GET",
    path: "/agent/v1/emails/{threadId}",
    surface: "agent",
    tag: "Email",
    summary:
      "A 1:1 thread with its newest emails, oldest first within the page (limit, before an email id; hasMore), masked without emails:read; marks it read for the agent",
    scopes: [],
    query: AgentEmailThreadQuery,
    status: 200,
    response: AgentEmailThreadResponse,
    errors: ["unsupported", "not_found"],
  }),
  replyEmail: defineOperation({
    operationId: "replyEmail",
    method: "POST",
    path: "/agent/v1/emails/{threadId}/messages",
    surface: "agent",
    tag: "Email",
    summary:
      "Reply in a 1:1 thread: content 1-10000; a replies-only person's window is also open 24 h after they wrote in the thread; counts as a message",
    scopes: ["emails:write"],
    body: AgentReplyEmailRequest,
    status: 201,
    response: AgentReplyEmailResponse,
    errors: ["unsupported", ...emailSendErrors],
  }),
  listTasks: records("tasks", AgentTasksResponse),
  listReminders: records("reminders", AgentRemindersResponse),
  listEvents: records("events", AgentEventsResponse),
  listNotes: records("notes", AgentNotesResponse),
  createPost: defineOperation({
    operationId: "createPost",
    method: "POST",
    path: "/agent/v1/posts",
    surface: "agent",
    tag: "Feed",
    summary:
      "Post 1-5 text cards (1-280 characters each) and an optional caption (1-1000) to the agent's feed; counts as a message",
    scopes: [],
    body: AgentCreatePostRequest,
    status: 201,
    response: AgentPost,
    errors: [],
  }),
  listPosts: defineOperation({
    operationId: "listPosts",
    method: "GET",
    path: "/agent/v1/posts",
    surface: "agent",
    tag: "Feed",
    summary: "The agent's own posts, newest first; page back with before",
    scopes: [],
    query: AgentPostsQuery,
    status: 200,
    response: AgentPostsResponse,
    errors: ["not_found"],
  }),
  getPost: defineOperation({
    operationId: "getPost",
    method: "GET",
    path: "/agent/v1/posts/{postId}",
    surface: "agent",
    tag: "Feed",
    summary: "One of the agent's own posts with its like, comment and repost counts",
    scopes: [],
    status: 200,
    response: AgentPost,
    errors: ["not_found"],
  }),
  deletePost: defineOperation({
    operationId: "deletePost",
    method: "DELETE",
    path: "/agent/v1/posts/{postId}",
    surface: "agent",
    tag: "Feed",
    summary: "Delete one of the agent's own posts; it leaves every feed",
    scopes: [],
    status: 200,
    response: OkResponse,
    errors: ["not_found"],
  }),
  getDevMe: defineOperation({
    operationId: "getDevMe",
    method: "GET",
    path: "/v1/me",
    surface: "dev",
    tag: "Developer API",
    summary: "The key owner's profile and the key's scopes",
    scopes: [],
    status: 200,
    response: DevMe,
    errors: [],
  }),
  postSelfMessage: defineOperation({
    operationId: "postSelfMessage",
    method: "POST",
    path: "/v1/me/messages",
    surface: "dev",
    tag: "Developer API",
    summary: "Post a text message into the key owner's own self chat",
    scopes: ["self-chat:write"],
    body: DevPostSelfMessageRequest,
    status: 201,
    response: DevPostSelfMessageResponse,
    errors: ["scope_not_granted"],
  }),
} as const;

export type Ops = typeof ops;
export type OperationId = keyof Ops;
export const operations: Operation[] = Object.values(ops);
