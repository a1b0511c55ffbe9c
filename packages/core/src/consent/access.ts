import type { AgentScope, AgentUser, Initiation } from "@switchboard/contract";
import { type Sql, schema } from "@switchboard/db";
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
    if (need.initiating) await countRefusedSend(deps, agentId, error);
    throw error;
  }
}

/**
 * Counts a send refused for consent (`not_a_contact`, `scope_not_granted`,
 * `reply_window_closed`, `blocked`) toward the agent's daily refused-send ceiling; any other
 * error is not a refusal and counts nothing. In a transaction of its own: call it once the
 * refused send's transaction, if any, has ended (it writes the agent's usage row the send's
 * charge holds).
 */
export async function countRefusedSend(
  deps: CoreDeps,
  agentId: string,
  error: unknown,
): Promise<void> {
  if (error instanceof CoreError && refusedSendCodes.has(error.code))
    await recordRefusedSend(deps, agentId, error.code);
}

/**
 * What a send toward a number or a conversation was decided on: the standing row read, and the
 * row as Postgres writes it as text. A repeat send decides again on it at its own time and goes
 * out as one statement that compares a fresh read's text with it (decision 0083).
 */
export interface SendStanding {
  agentId: string;
  target: Pick<AccessTarget, "to" | "conversationId">;
  standing: Standing;
  text: string;
}

/**
 * `checkAgentAccess`'s read toward a number or a conversation, for a send: the same row (404s
 * for unknown targets), with its text. One fixed statement per target kind, so Postgres
 * prepares it once per connection.
 */
export async function readSendStanding(
  pg: Sql,
  agentId: string,
  target: Pick<AccessTarget, "to" | "conversationId">,
): Promise<SendStanding> {
  const byNumber = target.to !== undefined;
  if (byNumber === (target.conversationId !== undefined))
    throw new CoreError("validation_error", "Give exactly one of to or conversationId", {
      issues: [{ path: "to", message: "give exactly one of to or conversationId" }],
    });
  const [row] = await pg<(StandingRow & { standing_text: string })[]>`
    select s.*, s::text as standing_text from (${standingRead(pg, agentId, target)}) s`;
  if (!row)
    throw byNumber
      ? new CoreError("not_found", `Nobody has the number ${target.to}`)
      : new CoreError("not_found", `No conversation ${target.conversationId}`);
  return { agentId, target, standing: standingOf(row, byNumber), text: row.standing_text };
}

/** `checkAgentAccess`'s decision on a send's standing, at the clock's time now. */
export function decideOnStanding(deps: CoreDeps, need: AccessNeed, read: SendStanding) {
  return decide(deps, need, read.standing);
}

/**
 * True when the standing read now is the one remembered, as a condition of a repeat send's one
 * statement: the person, the contact, the agent and the chat exactly as they were decided on.
 */
export function standingUnchanged(pg: Sql, read: SendStanding) {
  return pg`(select s::text from (${standingRead(pg, read.agentId, read.target)}) s)
    is not distinct from ${read.text}::text`;
}

/** The standing read toward a number or a conversation; postgres.js's own template (decision 0075). */
function standingRead(
  pg: Sql,
  agentId: string,
  target: Pick<AccessTarget, "to" | "conversationId">,
) {
  return target.to !== undefined
    ? pg`${standingColumns(pg)}
      from users p
      join users a on a.id = ${agentId}
      left join agent_contacts c on c.user_id = p.id and c.agent_id = ${agentId}
      left join conversations conv on conv.id = c.conversation_id
      left join conversation_members me on me.conversation_id = conv.id and me.user_id = ${agentId}
      where p.num = ${target.to} limit 1`
    : pg`${standingColumns(pg)}
      from conversations conv
      join users a on a.id = ${agentId}
      left join conversation_members me on me.conversation_id = conv.id and me.user_id = ${agentId}
      left join conversation_members other
        on other.conversation_id = conv.id and other.user_id <> ${agentId}
      left join users p on p.id = other.user_id
      left join agent_contacts c on c.user_id = p.id and c.agent_id = ${agentId}
      where conv.id = ${target.conversationId as string} limit 1`;
}

function standingOf(row: StandingRow, byNumber: boolean): Standing {
  // The pool's client answers timestamps as text (drizzle's driver sets postgres.js's parsers).
  const at = (value: string | null) => (value === null ? null : new Date(value));
  return {
    person:
      row.p_id === null
        ? null
        : {
            id: row.p_id,
            num: row.p_num,
            displayName: row.p_display_name,
            avatarUrl: row.p_avatar_url,
            userType: row.p_user_type,
            suspendedAt: at(row.p_suspended_at),
          },
    contact:
      row.c_user_id === null
        ? null
        : {
            userId: row.c_user_id,
            conversationId: row.c_conversation_id,
            addedAt: at(row.c_added_at),
            grantedScopes: row.c_granted_scopes,
            initiation: row.c_initiation,
            blockedAt: at(row.c_blocked_at),
            lastInboundAt: at(row.c_last_inbound_at),
          },
    agent: {
      id: row.a_id,
      num: row.a_num,
      displayName: row.a_display_name,
      avatarUrl: row.a_avatar_url,
      userType: row.a_user_type,
    },
    conversationId: row.conversation_id,
    kind: row.kind,
    member: row.member,
    message: null,
    via: byNumber ? "to" : "conversation",
  } as Standing;
}

/** The columns of `readStanding`'s queries, as `standingRead`'s statements name them. */
const standingColumns = (pg: Sql) => pg`select
  p.id as p_id, p.num as p_num, p.display_name as p_display_name, p.avatar_url as p_avatar_url,
  p.user_type as p_user_type, p.suspended_at as p_suspended_at,
  c.user_id as c_user_id, c.conversation_id as c_conversation_id, c.added_at as c_added_at,
  c.granted_scopes as c_granted_scopes, c.initiation as c_initiation,
  c.blocked_at as c_blocked_at, c.last_inbound_at as c_last_inbound_at,
  a.id as a_id, a.num as a_num, a.display_name as a_display_name, a.avatar_url as a_avatar_url,
  a.user_type as a_user_type,
  conv.id as conversation_id, conv.kind, me.user_id as member`;

type UserRow = typeof users.$inferSelect;
type ContactRow = typeof agentContacts.$inferSelect;
interface StandingRow {
  p_id: string | null;
  p_num: string;
  p_display_name: string | null;
  p_avatar_url: string | null;
  p_user_type: UserRow["userType"];
  p_suspended_at: string | null;
  c_user_id: string | null;
  c_conversation_id: string | null;
  c_added_at: string | null;
  c_granted_scopes: string[];
  c_initiation: ContactRow["initiation"];
  c_blocked_at: string | null;
  c_last_inbound_at: string | null;
  a_id: string;
  a_num: string;
  a_display_name: string | null;
  a_avatar_url: string | null;
  a_user_type: UserRow["userType"];
  conversation_id: string | null;
  kind: (typeof conversations.$inferSelect)["kind"] | null;
  member: string | null;
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

/** A consent refusal's code and its one wording (`decide`'s, and history's check in SQL). */
export type AccessRefusal = "forbidden" | "not_a_contact" | "blocked" | "scope_not_granted";

/** The error `decide` answers for `code` (`scope`: the scope missing, for `scope_not_granted`). */
export function accessRefusal(code: AccessRefusal, scope?: AgentScope): CoreError {
  switch (code) {
    case "forbidden":
      return new CoreError("forbidden", "The agent is not a participant of this 1:1 conversation");
    case "not_a_contact":
      return new CoreError("not_a_contact", "This person has not added the agent as a contact");
    case "blocked":
      return new CoreError("blocked", "This person has blocked the agent");
    case "scope_not_granted":
      return new CoreError("scope_not_granted", `This person has not granted ${scope}`, { scope });
  }
}

function decide(deps: CoreDeps, need: AccessNeed, standing: Standing): AgentAccess {
  const { person, contact, agent, member, kind } = standing;
  if (standing.via !== "to" && (!member || kind !== "direct" || !person))
    throw accessRefusal("forbidden");
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
  if (!contact?.conversationId) throw accessRefusal("not_a_contact");
  if (contact.blockedAt) throw accessRefusal("blocked");
  if (!contact.addedAt) throw accessRefusal("not_a_contact");
  const granted = contact.grantedScopes as AgentScope[];
  const missing = scopes.find((scope) => !granted.includes(scope));
  if (missing) throw accessRefusal("scope_not_granted", missing);
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
