import type { ChatReaction, PersonChatPage } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { asc, eq, inArray } from "drizzle-orm";
import { type ActionRow, toAgentAction } from "../actions/action-shape";
import { toActionDecision } from "../actions/decisions";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { readMessagePage } from "./list-agent-messages";
import { findPersonChat, loadPersonConversation } from "./person-chat";
import { readOpenReplies } from "./streamed-replies";

const { actions, conversationReads, messages, reactions } = schema;

/**
 * A page of a person's chat with an agent (`chatRef`: conversation id, or the agent's id or
 * number), oldest first; `before` pages back. Each message carries its reactions and whether its
 * recipient has read it; the page carries the chat (settings, the agent's typing state) and
 * each side's read mark, so a chat view renders everything from one call. The person's own
 * chat stays readable after they remove or block the agent.
 */
export async function listPersonMessages(
  deps: CoreDeps,
  userRef: string,
  chatRef: string,
  query: { limit?: number; before?: string } = {},
): Promise<PersonChatPage> {
  const limit = query.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CoreError("validation_error", "limit must be 1-100", {
      issues: [{ path: "limit", message: "must be 1-100" }],
    });
  const { user, agent, conversationId } = await findPersonChat(deps, userRef, chatRef);
  const conversation = await loadPersonConversation(deps, user.id, conversationId);
  if (!conversation) throw new CoreError("not_found", `No chat ${chatRef}`);
  const page = await readMessagePage(deps, conversationId, { limit, before: query.before });
  const ids = page.rows.map((r) => r.message.id);
  const actionIds = page.rows.flatMap((r) => r.message.agentActionId ?? []);
  const [reactionRows, readRows, actionRows, openReplies] = await Promise.all([
    ids.length === 0
      ? []
      : deps.db
          .select()
          .from(reactions)
          .where(inArray(reactions.messageId, ids))
          .orderBy(asc(reactions.createdAt)),
    deps.db
      .select({
        userId: conversationReads.userId,
        pos: conversationReads.lastReadPos,
        id: messages.id,
      })
      .from(conversationReads)
      .innerJoin(messages, eq(messages.pos, conversationReads.lastReadPos))
      .where(eq(conversationReads.conversationId, conversationId)),
    actionIds.length === 0
      ? []
      : deps.db.select().from(actions).where(inArray(actions.id, actionIds)),
    readOpenReplies(deps, conversationId),
  ]);
  const actionById = new Map(actionRows.map((row) => [row.id, row]));
  const readPos = new Map(readRows.map((r) => [r.userId, r.pos]));
  const byMessage = new Map<string, ChatReaction[]>();
  for (const r of reactionRows)
    byMessage.set(r.messageId, [
      ...(byMessage.get(r.messageId) ?? []),
      { userId: r.userId, emoji: r.emoji, createdAt: r.createdAt.toISOString() },
    ]);
  return {
    conversation,
    messages: page.rows.map((r, i) => {
      const recipient = r.message.senderId === user.id ? agent.id : user.id;
      return {
        ...(page.messages[i] as (typeof page.messages)[number]),
        reactions: byMessage.get(r.message.id) ?? [],
        readByOther: (readPos.get(recipient) ?? 0) >= r.message.pos,
        ...cardOf(actionById.get(r.message.agentActionId ?? "")),
      };
    }),
    hasMore: page.hasMore,
    openReplies,
    readUpTo: {
      person: readRows.find((r) => r.userId === user.id)?.id ?? null,
      agent: readRows.find((r) => r.userId === agent.id)?.id ?? null,
    },
  };
}

/** An approval card's proposal as it stands, and how it was decided (the console's audit trail). */
function cardOf(row: ActionRow | undefined) {
  return row
    ? { action: toAgentAction(row), decision: toActionDecision(row) }
    : { action: null, decision: null };
}
