import { z } from "zod";
import { AgentAction, AgentPlatformSkill } from "./actions";
import { DateTime, pageQuery } from "./common";
import { ActionDecision } from "./decisions";
import { AgentMessage, AgentMessageFields, checkMediaGroups } from "./messages";
import { AgentScope } from "./scopes";
import { AgentUser, RequestPrivacy } from "./users";

/** A person's initiation policy toward one agent. */
export const Initiation = z.enum(["any", "reply_only"]);
export type Initiation = z.infer<typeof Initiation>;

/** One of the agent's 1:1 conversations, with the participant's current grant and policy. */
export const AgentConversation = z.object({
  id: z.string(),
  participant: AgentUser,
  /** What the participant granted; `[]` means the agent may neither read nor write there. */
  grantedScopes: z.array(AgentScope),
  initiation: Initiation,
  lastMessageAt: DateTime.nullable(),
  createdAt: DateTime,
});
export type AgentConversation = z.infer<typeof AgentConversation>;

/** `GET /agent/v1/conversations`: a page, newest activity first; `before` a conversation id. */
export const AgentConversationsQuery = pageQuery("a conversation id");

/** The spec's `{ conversations }` as one page, with `hasMore` (older ones follow). */
export const AgentConversationsResponse = z.object({
  conversations: z.array(AgentConversation),
  hasMore: z.boolean(),
});
export type AgentConversationsResponse = z.infer<typeof AgentConversationsResponse>;

const MessageId = z.string().min(1, "must be a message id").max(100, "must be a message id");

/** `GET /agent/v1/conversations/{conversationId}/messages`. */
export const AgentHistoryQuery = pageQuery("a message id");
export type AgentHistoryQuery = z.infer<typeof AgentHistoryQuery>;

export const AgentHistoryResponse = z.object({
  messages: z.array(AgentMessage),
  hasMore: z.boolean(),
});
export type AgentHistoryResponse = z.infer<typeof AgentHistoryResponse>;

/** `POST /agent/v1/conversations/{conversationId}/read`: the newest message read. */
export const AgentReadRequest = z.strictObject({ messageId: MessageId });
export type AgentReadRequest = z.infer<typeof AgentReadRequest>;

/** `POST /agent/v1/conversations/{conversationId}/typing`: the body is optional. */
export const AgentTypingRequest = z.strictObject({ typing: z.boolean().optional().default(true) });
export type AgentTypingRequest = z.infer<typeof AgentTypingRequest>;

export const OkResponse = z.object({ ok: z.literal(true) });

// ---- What a person's apps (console, CLI) show of their chats with agents. ----

/** A reaction as a chat view shows it: who reacted, with what. */
export const ChatReaction = z.object({
  userId: z.string(),
  emoji: z.string(),
  createdAt: DateTime,
});
export type ChatReaction = z.infer<typeof ChatReaction>;

/** A message in a person's chat view: the message, its reactions, and whether the other side read it. */
export const PersonChatMessage = AgentMessageFields.extend({
  reactions: z.array(ChatReaction),
  /** True once its recipient (the participant who did not send it) has read up to or past it. */
  readByOther: z.boolean(),
  /** On an approval card (`agentActionId` set): the proposal as it stands now. */
  action: AgentAction.nullable(),
  /** On a decided card: how it was decided (the console's audit trail); null otherwise. */
  decision: ActionDecision.nullable(),
}).superRefine(checkMediaGroups);
export type PersonChatMessage = z.infer<typeof PersonChatMessage>;

/** One of a person's chats with an agent, with their settings for that agent. */
export const PersonConversation = z.object({
  id: z.string(),
  agent: AgentUser,
  /** The agent is in the person's contacts (false after removing it; the chat stays). */
  isContact: z.boolean(),
  /** What the agent asks for on its consent card, in consent-card order. */
  requestedScopes: z.array(AgentScope),
  grantedScopes: z.array(AgentScope),
  initiation: Initiation,
  blocked: z.boolean(),
  /** Create skills the person lets this agent run without a card. */
  autoExecuteSkills: z.array(AgentPlatformSkill),
  lastMessage: AgentMessageFields.nullable(),
  lastMessageAt: DateTime.nullable(),
  /** Messages from the agent after the person's read mark. */
  unreadCount: z.number().int(),
  /** The agent shows as typing until then (it ends by itself); null when it is not typing. */
  agentTypingUntil: DateTime.nullable(),
  createdAt: DateTime,
});
export type PersonConversation = z.infer<typeof PersonConversation>;

/** A reply the agent is streaming right now: its text so far (it becomes a message at its end). */
export const PersonOpenReply = z.object({
  messageId: z.string(),
  senderId: z.string(),
  text: z.string(),
  startedAt: DateTime,
});
export type PersonOpenReply = z.infer<typeof PersonOpenReply>;

/** A page of a person's chat, oldest first, plus the live state a chat view renders. */
export const PersonChatPage = z.object({
  conversation: PersonConversation,
  messages: z.array(PersonChatMessage),
  /** Replies being streamed into the chat now, oldest first; they follow the newest message. */
  openReplies: z.array(PersonOpenReply),
  hasMore: z.boolean(),
  /** The newest message each side has read (null when none). */
  readUpTo: z.object({ person: z.string().nullable(), agent: z.string().nullable() }),
});
export type PersonChatPage = z.infer<typeof PersonChatPage>;

/**
 * What a person sees before adding an agent: who it is, the scopes it asks for (consent-card
 * order), whether they may add it under its request privacy (and why not), and where they stand.
 */
export const ConsentCard = z.object({
  agent: AgentUser.extend({ bio: z.string().nullable() }),
  /** Who made the agent (its owner's display name); null when the owner account is gone. */
  owner: z.object({ displayName: z.string().nullable() }).nullable(),
  requestedScopes: z.array(AgentScope),
  requestPrivacy: RequestPrivacy,
  mayAdd: z.boolean(),
  /** Why the person may not add the agent; null when they may. */
  refusal: z.string().nullable(),
  isContact: z.boolean(),
  grantedScopes: z.array(AgentScope),
  blocked: z.boolean(),
  /** Their 1:1 conversation, once there is one. */
  conversationId: z.string().nullable(),
});
export type ConsentCard = z.infer<typeof ConsentCard>;
