import type { AgentScope, AgentUser, Initiation } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { agentUserColumns, toAgentUser } from "../identity/users";
import { recordRefusedSend } from "../limits/charge-send";
import { preparedQuery } from "../prepared-query";

const { agentContacts, conversations, conversationMembers, messages, users } = schema;

/** A replies-only person's window after their own last message. */
export const REPLY_WINDOW_MS = 24 * 3600_000;

/** Who an agent call is toward: a person's number, a conversation, or a message in one (exactly one). */
export interface AccessTarget {
  to?: string;
  conversationId?: string;
  messageId?: string;
}

export interface AccessNeed {
  /** The scope(s) the call needs from the person; the first one missing is reported. */
  scope: AgentScope | readonly AgentScope[];
  /** Sends and proposals start something: they also need a replies-only person's open window. */
  initiating?: boolean;
  /** With a message target: the agent's own message needs no consent at all (its voice notes). */
  ownMessageExempt?: boolean;
  /**
   * For an initiating call: when the person last wrote somewhere else that also opens their
   * reply window for this call (their last email in a thread, for a reply in that thread). The
   * window runs from the later of this and their last message in the 1:1 chat.
   */
  lastInboundAt?: Date | null;
}

/** The message a message target named (for the caller, so it need not read it again). */
export interface AccessedMessage {
  id: string;
  pos: number;
  senderId: string;
  conversationId: string;
  type: (typeof messages.$inferSelect)["type"];
  media: Record<string, unknown> | null;
}

/** What the agent may do toward one person right now, read fresh from the database. */
export interface AgentAccess {
  agent: AgentUser;
  person: AgentUser;
  conversationId: string;
  grantedScopes: AgentScope[];
  initiation: Initiation;
  /** Set for a message target. */
  message?: AccessedMessage;
}

/** The codes of a refused send; they count toward the daily refused-send ceiling. */
const refusedSendCodes = new Set([
  "not_a_contact",
  "scope_not_granted",
  "reply_window_closed",
  "blocked",
]);

/**
 * The one consent check of every agent call toward a person: send, history, read receipts,
 * typing, reactions, audio, proposals and streamed replies. Nothing is cached: one query reads
 * the target, the person, the agent and the person's standing with the agent, on every call.
 *
 * Unknown targets answer 404 (`not_found`; a message outside the agent's conversations is
 * unknown too). A conversation the agent is not in, or one that is not 1:1, answers `forbidden`.
 * Then, in this order: `recipient_suspended` (calls that reach the person only, not reads),
 * `not_a_contact` for a person who never added the agent (even one who blocked it), `blocked`,
 * `not_a_contact` for a former contact, `scope_not_granted`
 * (with `details.scope`), and for initiating calls `reply_window_closed` (24 h after the
 * person's last message in the chat, or `need.lastInboundAt`, by the injected clock). An initiating call refused for consent is
 * counted toward the agent's daily refused-send ceiling.
 */
export async function checkAgentAccess(
  deps: CoreDeps,
  agentId: string,
  target: AccessTarget,
  need: AccessNeed,
): Promise<AgentAccess> {
  try {
    return decide(deps, need, await readStanding(deps, agentId, target));
  } catch (error) {
    if (need.initiating && error instanceof CoreError && refusedSendCodes.has(error.code))
      await recordRefusedSend(deps, agentId, error.code);
    throw error;
  }
}

const me = alias(conversationMembers, "me");
const other = alias(conversationMembers, "other");
const agentUser = alias(users, "agent_user");

type Standing = Awaited<ReturnType<typeof readStanding>>;

const messageColumns = {
  id: messages.id,
  pos: messages.pos,
  senderId: messages.senderId,
  conversationId: messages.conversationId,
  type: messages.type,
  media: messages.media,
};

/**
 * The single query: target → conversation → the other member → their standing with the agent.
 * It runs on every agent call toward a person, so it is built once (`preparedQuery`).
 */
async function readStanding(deps: CoreDeps, agentId: string, target: AccessTarget) {
  const given = [target.to, target.conversationId, target.messageId].filter((v) => v !== undefined);
  if (given.length !== 1)
    throw new CoreError("validation_error", "Give exactly one of to or conversationId", {
      issues: [{ path: "to", message: "give exactly one of to or conversationId" }],
    });
  const queries = standingQueries(deps.db);
  if (target.to !== undefined) {
    const [row] = await queries.byNumber.execute({ agentId, target: target.to });
    if (!row) throw new CoreError("not_found", `Nobody has the number ${target.to}`);
    return { ...row, via: "to" as const };
  }
  if (target.conversationId !== undefined) {
    const [row] = await queries.byConversation.execute({ agentId, target: target.conversationId });
    if (!row) throw new CoreError("not_found", `No conversation ${target.conversationId}`);
    return { ...row, via: "conversation" as const };
  }
  const [row] = await queries.byMessage.execute({ agentId, target: target.messageId });
  // A message outside the agent's conversations is as unknown as one that does not exist.
  if (!row?.member) throw new CoreError("not_found", `No message ${target.messageId}`);
  return { ...row, via: "message" as const };
}

const standingQueries = preparedQuery((db) => {
  const agentId = sql.placeholder("agentId");
  const target = sql.placeholder("target");
  // Only what the decision and the answer use: a user's public profile and suspension, the
  // contact's standing (never a password hash or email riding along on every send).
  const columns = {
    person: { ...agentUserColumns, suspendedAt: users.suspendedAt },
    // Drizzle reads a left-joined object as absent when its first column is null: a key first.
    contact: {
      userId: agentContacts.userId,
      conversationId: agentContacts.conversationId,
      addedAt: agentContacts.addedAt,
      grantedScopes: agentContacts.grantedScopes,
      initiation: agentContacts.initiation,
      blockedAt: agentContacts.blockedAt,
      lastInboundAt: agentContacts.lastInboundAt,
    },
    agent: {
      id: agentUser.id,
      num: agentUser.num,
      displayName: agentUser.displayName,
      avatarUrl: agentUser.avatarUrl,
      userType: agentUser.userType,
    },
    conversationId: conversations.id,
    kind: conversations.kind,
    member: me.userId,
    message: messageColumns,
  };
  const isMe = and(eq(me.conversationId, conversations.id), eq(me.userId, agentId));
  const isOther = and(eq(other.conversationId, conversations.id), ne(other.userId, agentId));
  const isContact = and(eq(agentContacts.userId, users.id), eq(agentContacts.agentId, agentId));
  const isAgent = eq(agentUser.id, agentId);
  return {
    byNumber: db
      .select(columns)
      .from(users)
      .innerJoin(agentUser, isAgent)
      .leftJoin(agentContacts, isContact)
      .leftJoin(conversations, eq(conversations.id, agentContacts.conversationId))
      .leftJoin(me, isMe)
      .leftJoin(messages, sql`false`)
      .where(eq(users.num, target))
      .limit(1)
      .prepare("access_by_number"),
    byConversation: db
      .select(columns)
      .from(conversations)
      .innerJoin(agentUser, isAgent)
      .leftJoin(me, isMe)
      .leftJoin(other, isOther)
      .leftJoin(users, eq(users.id, other.userId))
      .leftJoin(agentContacts, isContact)
      .leftJoin(messages, sql`false`)
      .where(eq(conversations.id, target))
      .limit(1)
      .prepare("access_by_conversation"),
    byMessage: db
      .select(columns)
      .from(messages)
      .innerJoin(conversations, eq(conversations.id, messages.conversationId))
      .innerJoin(agentUser, isAgent)
      .leftJoin(me, isMe)
      .leftJoin(other, isOther)
      .leftJoin(users, eq(users.id, other.userId))
      .leftJoin(agentContacts, isContact)
      .where(eq(messages.id, target))
      .limit(1)
      .prepare("access_by_message"),
  };
});

const notAContact = () =>
  new CoreError("not_a_contact", "This person has not added the agent as a contact");

function decide(deps: CoreDeps, need: AccessNeed, standing: Standing): AgentAccess {
  const { person, contact, agent, member, kind } = standing;
  if (standing.via !== "to" && (!member || kind !== "direct" || !person))
    throw new CoreError("forbidden", "The agent is not a participant of this 1:1 conversation");
  if (!person) throw new CoreError("not_found", "No such person");
  const message = standing.via === "message" ? (standing.message ?? undefined) : undefined;
  const access = (granted: AgentScope[]): AgentAccess => ({
    agent: toAgentUser(agent),
    person: toAgentUser(person),
    conversationId: contact?.conversationId ?? (standing.conversationId as string),
    grantedScopes: granted,
    initiation: contact?.initiation ?? "any",
    ...(message && { message }),
  });
  if (need.ownMessageExempt && message?.senderId === agent.id)
    return access(contact?.addedAt ? (contact.grantedScopes as AgentScope[]) : []);

  // A suspended account gets nothing from the agent (sends, typing, reactions, read marks:
  // every `:write` call); what the agent reads of it (history, audio, records) stays readable
  // under the person's grant, as it was (decision 0039).
  const scopes: readonly AgentScope[] = typeof need.scope === "string" ? [need.scope] : need.scope;
  if (person.suspendedAt && !scopes.every((scope) => scope.endsWith(":read")))
    throw new CoreError("recipient_suspended", "This person's account is suspended");
  // Someone who never added the agent (no conversation with it) is a stranger to it whatever
  // they set: answering `blocked` would tell the agent of a block it has no business knowing.
  if (!contact?.conversationId) throw notAContact();
  if (contact.blockedAt) throw new CoreError("blocked", "This person has blocked the agent");
  if (!contact.addedAt) throw notAContact();
  const granted = contact.grantedScopes as AgentScope[];
  const missing = scopes.find((scope) => !granted.includes(scope));
  if (missing)
    throw new CoreError("scope_not_granted", `This person has not granted ${missing}`, {
      scope: missing,
    });
  if (need.initiating && contact.initiation === "reply_only") {
    const last = Math.max(
      contact.lastInboundAt?.getTime() ?? Number.NEGATIVE_INFINITY,
      need.lastInboundAt?.getTime() ?? Number.NEGATIVE_INFINITY,
    );
    if (deps.clock.now().getTime() - last >= REPLY_WINDOW_MS)
      throw new CoreError(
        "reply_window_closed",
        "This person takes replies only: the agent may write within 24 h of their last message",
      );
  }
  return access(granted);
}
