import {
  type AgentPlatformSkill,
  type AgentScope,
  inConsentOrder,
  Num,
  type PersonConversation,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import { type AnyPgColumn, alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { findAgent } from "../identity/agents";
import { findUser, type SeenUser, seenColumnsOf, toAgentUser } from "../identity/users";
import { toAgentMessage } from "../sending/compose-message";

const {
  agentContacts,
  agents,
  conversationReads,
  conversations,
  messages,
  typingIndicators,
  users,
} = schema;

const person = alias(users, "person");
const agentUser = alias(users, "agent_user");

/** A person's chat with one agent, as the person-side functions act on it. */
export interface PersonChat {
  user: SeenUser;
  /** The agent as the person sees it, with its bio (the chat's header). */
  agent: SeenUser & { bio: string | null };
  contact: typeof agentContacts.$inferSelect;
  conversationId: string;
  /** The agent's owner, whose console counts what the agent receives. */
  ownerId: string | null;
}

/**
 * Finds a person's chat with an agent. `userRef` is the person's id or number; `chatRef` is the
 * conversation id, or the agent's id or `800-` number. A person with no standing toward that
 * agent (never added it) has no chat: `not_a_contact` when `forSending`,
 * otherwise `not_found`.
 */
export async function findPersonChat(
  deps: CoreDeps,
  userRef: string,
  chatRef: string,
  options: { forSending?: boolean } = {},
): Promise<PersonChat> {
  const byRef = (table: { id: AnyPgColumn; num: AnyPgColumn }, ref: string): SQL =>
    Num.safeParse(ref).success ? eq(table.num, ref) : eq(table.id, ref);
  const [row] = await deps.db
    .select({
      user: seenColumnsOf(person),
      agent: { ...seenColumnsOf(agentUser), bio: agentUser.bio },
      contact: agentContacts,
      ownerId: agents.ownerId,
    })
    .from(agentContacts)
    .innerJoin(person, eq(person.id, agentContacts.userId))
    .innerJoin(agentUser, eq(agentUser.id, agentContacts.agentId))
    .innerJoin(agents, eq(agents.id, agentContacts.agentId))
    .where(
      and(
        byRef(person, userRef),
        or(eq(agentContacts.conversationId, chatRef), byRef(agentUser, chatRef)),
      ),
    )
    .limit(1);
  // A row without a conversation is a setting for an agent never added: no chat.
  if (row?.contact.conversationId) return { ...row, conversationId: row.contact.conversationId };
  const user = await findUser(deps, userRef);
  if (options.forSending && !chatRef.startsWith("cnv_")) {
    await findAgent(deps, chatRef);
    throw new CoreError("not_a_contact", "Add the agent to your contacts before writing to it");
  }
  throw new CoreError("not_found", `${user.displayName ?? user.num} has no chat ${chatRef}`);
}

/** A message of the person's chat, with the chat it belongs to. */
export async function findPersonChatMessage(deps: CoreDeps, userRef: string, messageId: string) {
  const [message] = await deps.db
    .select({ id: messages.id, conversationId: messages.conversationId })
    .from(messages)
    .where(eq(messages.id, messageId));
  if (!message) throw new CoreError("not_found", `No message ${messageId}`);
  const chat = await findPersonChat(deps, userRef, message.conversationId).catch((error) => {
    throw error instanceof CoreError && error.code === "not_found"
      ? new CoreError("not_found", `No message ${messageId}`)
      : error;
  });
  return { chat, messageId: message.id };
}

/** Where a chat sorts in the person's list: its last message's time, or its creation before any. */
export const chatActivity = sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`;

/** A chat row's count of the agent's messages the person has not read (joined on the contact). */
export const unreadCount = () =>
  sql<number>`(
    select count(*)::int from ${messages}
    where ${messages.conversationId} = ${conversations.id}
      and ${messages.senderId} = ${agentContacts.agentId}
      and ${messages.pos} > coalesce((
        select ${conversationReads.lastReadPos} from ${conversationReads}
        where ${conversationReads.conversationId} = ${conversations.id}
          and ${conversationReads.userId} = ${agentContacts.userId}), 0)
  )`.mapWith(Number);

/** Until when the chat's agent shows as typing, or null (joined on the contact). */
export const agentTypingUntil = (now: Date) =>
  sql<Date | null>`(
    select ${typingIndicators.until} from ${typingIndicators}
    where ${typingIndicators.conversationId} = ${conversations.id}
      and ${typingIndicators.userId} = ${agentContacts.agentId}
      and ${typingIndicators.until} > ${now.toISOString()}::timestamptz
  )`.mapWith(typingIndicators.until);

/**
 * One of the person's chats as its open view shows it: the agent, whether it is a contact,
 * requested and granted scopes, initiation, block, the last message, unread count and the
 * agent's typing state. Undefined when the person has no such chat.
 */
export async function loadPersonConversation(
  deps: CoreDeps,
  userId: string,
  conversationId: string,
): Promise<PersonConversation | undefined> {
  const now = deps.clock.now();
  const [[r], last] = await Promise.all([
    deps.db
      .select({
        contact: agentContacts,
        conversation: conversations,
        agent: seenColumnsOf(agentUser),
        requestedScopes: agents.requestedScopes,
        unreadCount: unreadCount(),
        agentTypingUntil: agentTypingUntil(now),
      })
      .from(agentContacts)
      .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
      .innerJoin(agentUser, eq(agentUser.id, agentContacts.agentId))
      .innerJoin(agents, eq(agents.id, agentContacts.agentId))
      .where(
        and(eq(agentContacts.userId, userId), eq(agentContacts.conversationId, conversationId)),
      ),
    lastMessagesOf(deps, [conversationId]),
  ]);
  if (!r) return undefined;
  return {
    id: r.conversation.id,
    agent: toAgentUser(r.agent),
    isContact: r.contact.addedAt !== null,
    requestedScopes: inConsentOrder(r.requestedScopes as AgentScope[]),
    grantedScopes: r.contact.addedAt ? inConsentOrder(r.contact.grantedScopes as AgentScope[]) : [],
    initiation: r.contact.initiation,
    blocked: r.contact.blockedAt !== null,
    autoExecuteSkills: r.contact.autoExecuteSkills as AgentPlatformSkill[],
    lastMessage: last.get(r.conversation.id) ?? null,
    lastMessageAt: r.conversation.lastMessageAt?.toISOString() ?? null,
    unreadCount: r.unreadCount,
    agentTypingUntil: r.agentTypingUntil?.toISOString() ?? null,
    createdAt: r.conversation.createdAt.toISOString(),
  };
}

/** Each chat's newest message, by chat id: what a chat's row and head preview. */
export async function lastMessagesOf(
  deps: CoreDeps,
  conversationIds: string[],
): Promise<Map<string, PersonConversation["lastMessage"]>> {
  if (conversationIds.length === 0) return new Map();
  const last = await deps.db
    .selectDistinctOn([messages.conversationId], { message: messages, senderNum: users.num })
    .from(messages)
    .innerJoin(users, eq(users.id, messages.senderId))
    .where(inArray(messages.conversationId, conversationIds))
    .orderBy(messages.conversationId, desc(messages.pos));
  return new Map(
    last.map((l) => [l.message.conversationId, toAgentMessage(l.message, l.senderNum)]),
  );
}
