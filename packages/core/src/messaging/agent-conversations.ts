import type {
  AgentConversation,
  AgentHistoryQuery,
  AgentMessage,
  AgentScope,
  Reaction,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics } from "../events/notifier";
import { toAgentUser } from "../identity/users";
import { toAgentMessage } from "./compose-message";

const {
  agentContacts,
  conversations,
  conversationReads,
  messages,
  reactions,
  typingIndicators,
  users,
} = schema;

/** How long a typing indicator shows unless refreshed. */
export const TYPING_TTL_MS = 8000;

/** `GET /conversations`: every 1:1 conversation of the agent, newest activity first, never hidden. */
export async function listAgentConversations(
  deps: CoreDeps,
  agentId: string,
): Promise<AgentConversation[]> {
  const rows = await deps.db
    .select({ contact: agentContacts, conversation: conversations, person: users })
    .from(agentContacts)
    .innerJoin(conversations, eq(conversations.id, agentContacts.conversationId))
    .innerJoin(users, eq(users.id, agentContacts.userId))
    .where(eq(agentContacts.agentId, agentId))
    .orderBy(
      desc(sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`),
      desc(conversations.id),
    );
  return rows.map(({ contact, conversation, person }) => ({
    id: conversation.id,
    participant: toAgentUser(person),
    grantedScopes: (contact.addedAt ? contact.grantedScopes : []) as AgentScope[],
    initiation: contact.initiation,
    lastMessageAt: conversation.lastMessageAt?.toISOString() ?? null,
    createdAt: conversation.createdAt.toISOString(),
  }));
}

/** `GET /conversations/{id}/messages`: a page of history, oldest first; `before` pages back. */
export async function listAgentMessages(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  query: AgentHistoryQuery,
): Promise<{ messages: AgentMessage[]; hasMore: boolean }> {
  await checkAgentAccess(deps, agentId, { conversationId }, { scope: "messages:read" });
  let beforePos: number | undefined;
  if (query.before) {
    const [anchor] = await deps.db
      .select({ pos: messages.pos })
      .from(messages)
      .where(and(eq(messages.id, query.before), eq(messages.conversationId, conversationId)));
    if (!anchor)
      throw new CoreError("not_found", `No message ${query.before} in this conversation`);
    beforePos = anchor.pos;
  }
  const rows = await deps.db
    .select({ message: messages, senderNum: users.num })
    .from(messages)
    .innerJoin(users, eq(users.id, messages.senderId))
    .where(
      and(
        eq(messages.conversationId, conversationId),
        beforePos === undefined ? undefined : lt(messages.pos, beforePos),
      ),
    )
    .orderBy(desc(messages.pos))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit).reverse();
  return {
    messages: page.map((r) => toAgentMessage(r.message, r.senderNum)),
    hasMore: rows.length > query.limit,
  };
}

async function messageInConversation(deps: CoreDeps, messageId: string, conversationId?: string) {
  const [message] = await deps.db.select().from(messages).where(eq(messages.id, messageId));
  if (!message || (conversationId && message.conversationId !== conversationId))
    throw new CoreError(
      "not_found",
      `No message ${messageId}${conversationId ? " in this conversation" : ""}`,
    );
  return message;
}

/** `POST /conversations/{id}/read`: the agent has read up to `messageId`; the person sees it. */
export async function markConversationRead(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  messageId: string,
) {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId },
    { scope: "messages:write" },
  );
  const message = await messageInConversation(deps, messageId, conversationId);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(conversationReads)
      .values({ conversationId, userId: agentId, lastReadPos: message.pos, readAt: now })
      .onConflictDoUpdate({
        target: [conversationReads.conversationId, conversationReads.userId],
        set: {
          lastReadPos: sql`greatest(${conversationReads.lastReadPos}, ${message.pos})`,
          readAt: now,
        },
      });
    await notifyTopics(tx, [`user:${access.person.id}`]);
  });
}

/** `POST /conversations/{id}/typing`: shows (for a few seconds unless refreshed) or clears it. */
export async function setAgentTyping(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  typing: boolean,
) {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId },
    { scope: "messages:write" },
  );
  const until = new Date(deps.clock.now().getTime() + TYPING_TTL_MS);
  await deps.db.transaction(async (tx) => {
    if (typing)
      await tx
        .insert(typingIndicators)
        .values({ conversationId, userId: agentId, until })
        .onConflictDoUpdate({
          target: [typingIndicators.conversationId, typingIndicators.userId],
          set: { until },
        });
    else
      await tx
        .delete(typingIndicators)
        .where(
          and(
            eq(typingIndicators.conversationId, conversationId),
            eq(typingIndicators.userId, agentId),
          ),
        );
    await notifyTopics(tx, [`user:${access.person.id}`]);
  });
}

/** `POST /messages/{id}/reactions`. Reacting twice with the same emoji keeps one reaction. */
export async function addReaction(
  deps: CoreDeps,
  agentId: string,
  messageId: string,
  emoji: string,
): Promise<Reaction> {
  const message = await messageInConversation(deps, messageId);
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId: message.conversationId },
    { scope: "messages:write" },
  );
  return deps.db.transaction(async (tx) => {
    await tx
      .insert(reactions)
      .values({ messageId, userId: agentId, emoji, createdAt: deps.clock.now() })
      .onConflictDoNothing();
    const [row] = await tx
      .select()
      .from(reactions)
      .where(
        and(
          eq(reactions.messageId, messageId),
          eq(reactions.userId, agentId),
          eq(reactions.emoji, emoji),
        ),
      );
    await notifyTopics(tx, [`user:${access.person.id}`]);
    return { messageId, emoji, createdAt: (row?.createdAt ?? deps.clock.now()).toISOString() };
  });
}

/** `DELETE /messages/{id}/reactions/{emoji}`; removing a reaction that is not there is fine. */
export async function removeReaction(
  deps: CoreDeps,
  agentId: string,
  messageId: string,
  emoji: string,
) {
  const message = await messageInConversation(deps, messageId);
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId: message.conversationId },
    { scope: "messages:write" },
  );
  await deps.db.transaction(async (tx) => {
    await tx
      .delete(reactions)
      .where(
        and(
          eq(reactions.messageId, messageId),
          eq(reactions.userId, agentId),
          eq(reactions.emoji, emoji),
        ),
      );
    await notifyTopics(tx, [`user:${access.person.id}`]);
  });
}
