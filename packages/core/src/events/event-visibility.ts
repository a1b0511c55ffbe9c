import {
  type AccessDenied,
  AgentEvent,
  type AgentEventType,
  type AgentScope,
  type AgentUser,
  agentEventTypes,
  eventRegistry,
} from "@switchboard/contract";
import { type Executor, schema } from "@switchboard/db";
import { and, eq, type SQL, sql } from "drizzle-orm";

const { agentContacts, events, users } = schema;

/**
 * Consent applies when an event is read, not when it is written. The log keeps every payload
 * whole with the person it is about (`events.person_id`); long-poll, the stream and every
 * webhook attempt show it through that person's standing with the agent *now*: a withheld read
 * scope masks the content (`message.*`, `email.received`) or drops the event (person-surface events). Revoking a
 * scope, blocking or removing the agent therefore also covers replays of earlier events.
 */

type Payload = Record<string, unknown>;

/** Why a masked event has no content. */
export function readDenied(from: AgentUser, scope: AgentScope): AccessDenied {
  const who = from.displayName ?? from.num;
  return { scope, message: `${who} has not granted ${scope}, so the content is withheld` };
}

const fromOf = (payload: Payload) => payload.from as AgentUser;

/**
 * The masked form of each type the event registry marks `withheld: "masked"` (which scope, and
 * whether a type is masked or not sent at all, is the registry's). Types that need no scope
 * (actions, contact.added) are shown as stored.
 */
const maskers: Partial<Record<AgentEventType, (stored: Payload, scope: AgentScope) => Payload>> = {
  "message.received": (stored, scope) => ({
    conversationId: stored.conversationId,
    from: stored.from,
    message: null,
    accessDenied: readDenied(fromOf(stored), scope),
  }),
  "message.transcript": (stored, scope) => ({
    conversationId: stored.conversationId,
    messageId: stored.messageId,
    from: stored.from,
    transcript: null,
    accessDenied: readDenied(fromOf(stored), scope),
  }),
  // The subject of a thread the agent started is its own words, so it stays (the spec).
  "email.received": (stored, scope) => ({
    threadId: stored.threadId,
    subject: stored.agentStartedThread === true ? stored.subject : null,
    from: stored.from,
    email: null,
    accessDenied: readDenied(fromOf(stored), scope),
  }),
};

/**
 * The payload an agent gets for a stored event, given the scopes the person grants it now
 * (null for an event about nobody); null when the event is not shown at all.
 */
function toWirePayload(
  type: string,
  stored: Payload,
  scopes: readonly string[] | null,
): Payload | null {
  const entry = eventRegistry[type as AgentEventType];
  if (!entry?.scope || scopes === null || scopes.includes(entry.scope)) return stored;
  if (entry.withheld === "not_sent") return null;
  const mask = maskers[type as AgentEventType];
  if (!mask) throw new Error(`No masked form for ${type}`);
  return mask(stored, entry.scope);
}

/**
 * The scopes the event's person grants the agent now, as a column of a query over `events`
 * joined by `standingJoins`: their grant while the agent is in their contacts, not blocked and
 * their account not suspended (the same standing history reads need); `{}` otherwise, and for a
 * person who is gone; null for an event about nobody.
 */
export const currentScopes: SQL<string[] | null> = sql<string[] | null>`case
  when ${events.personId} is null then null
  when ${agentContacts.addedAt} is not null and ${agentContacts.blockedAt} is null
    and ${users.id} is not null and ${users.suspendedAt} is null
  then ${agentContacts.grantedScopes}
  else '{}'::text[] end`;

/** The left joins `currentScopes` reads: the person's row with the agent, and their account. */
export const standingJoins = {
  contact: and(
    eq(agentContacts.userId, events.personId),
    eq(agentContacts.agentId, events.agentId),
  ) as SQL,
  person: eq(users.id, events.personId),
};

const dropped = agentEventTypes.flatMap((type) => {
  const { scope, withheld } = eventRegistry[type];
  return withheld === "not_sent" && scope ? [[type, scope] as const] : [];
});

/**
 * Filter for a query over `events` joined by `standingJoins`: false for an event the agent is
 * not shown now (a person-surface event without its scope), so a page's LIMIT counts only what
 * is shown and the read stays one query.
 */
export const isShown: SQL = sql`(${events.personId} is null
  or ${events.type} not in (${sql.join(
    dropped.map(([type]) => sql`${type}`),
    sql`, `,
  )})
  or (case ${events.type} ${sql.join(
    dropped.map(([type, scope]) => sql`when ${type} then ${scope}`),
    sql` `,
  )} end) = any(${currentScopes}))`;

/**
 * A stored event row as the agent sees it now; null when it is not shown. The one way to turn a
 * stored event into what anyone reads of it: long-poll, the stream, every webhook attempt and
 * the owner's console views (delivery detail, …) all go through it with the person's current
 * grants. The stored payload is never parsed for a reader anywhere else.
 */
export function toVisibleEvent(
  row: typeof events.$inferSelect,
  scopes: readonly string[] | null,
): AgentEvent | null {
  const payload = toWirePayload(row.type, row.payload, scopes);
  if (!payload) return null;
  return AgentEvent.parse({
    id: row.id,
    seq: row.seq,
    type: row.type,
    ts: row.ts.toISOString(),
    agentId: row.agentId,
    payload,
  });
}

/**
 * One of the agent's events as it sees it now, read with the person's current standing; null
 * when there is no such event or it is not shown.
 */
export async function readVisibleEvent(
  db: Executor,
  agentId: string,
  eventId: string,
): Promise<AgentEvent | null> {
  const [row] = await db
    .select({ event: events, scopes: currentScopes })
    .from(events)
    .leftJoin(agentContacts, standingJoins.contact)
    .leftJoin(users, standingJoins.person)
    .where(and(eq(events.agentId, agentId), eq(events.id, eventId)));
  return row ? toVisibleEvent(row.event, row.scopes) : null;
}
