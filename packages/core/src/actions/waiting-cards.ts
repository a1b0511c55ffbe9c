import type { ActionDecision, AgentAction, AgentUser } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, count, eq, gt, gte, min, or, type SQL, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { agentUserColumns, findUser, toAgentUser } from "../identity/users";
import { type ActionRow, toAgentAction } from "./action-shape";
import { toActionDecision } from "./decisions";

const { actions, users } = schema;

/** The most cards "Waiting for you" lists at once; the count says how many there are in all. */
export const MAX_WAITING_CARDS = 100;

/** A card that waits on the person: the proposal, its card message, and the agent that asks. */
export interface WaitingCard {
  /** The card's message in its chat (the chat links to it as `#card-<messageId>`). */
  messageId: string;
  action: AgentAction;
  /** How it was decided, once it was (a card kept in the list after its decision). */
  decision: ActionDecision | null;
  agent: AgentUser;
}

/** How many cards wait on a person, and when the first of them expires (null when none waits). */
export interface WaitingCount {
  count: number;
  nextExpiresAt: string | null;
}

/**
 * A card that waits at `now`: pending and not yet past its time (a card the timer has not
 * expired yet is not waiting). The one definition, for every query that counts or lists them.
 */
export const cardWaitingAt = (now: Date): SQL =>
  sql`(${eq(actions.state, "pending")} and ${gt(actions.expiresAt, now)})`;

const waitingOn = (userId: string, now: Date) =>
  and(eq(actions.userId, userId), cardWaitingAt(now));

/**
 * Every card that waits on the person, across their chats, the one expiring first first (at most
 * MAX_WAITING_CARDS), with how many wait in all and when the first expires. With `decidedSince`
 * (when the person opened the list) the cards decided, expired or past their time since then
 * stay in it, in their place, showing how they ended: a card does not vanish under the person's
 * finger. The same
 * reads as the chat's card: the console shows each as it shows it there.
 */
export async function listWaitingCards(
  deps: CoreDeps,
  userRef: string,
  query: { decidedSince?: Date } = {},
): Promise<WaitingCount & { cards: WaitingCard[] }> {
  const user = await findUser(deps, userRef);
  const now = deps.clock.now();
  const since = query.decidedSince;
  const [rows, counted] = await Promise.all([
    deps.db
      .select({ action: actions, agent: agentUserColumns })
      .from(actions)
      .innerJoin(users, eq(users.id, actions.agentId))
      .where(
        since
          ? and(
              eq(actions.userId, user.id),
              or(cardWaitingAt(since), gte(actions.resolvedAt, since)),
            )
          : waitingOn(user.id, now),
      )
      .orderBy(asc(actions.expiresAt), asc(actions.id))
      .limit(MAX_WAITING_CARDS),
    readCount(deps, user.id, now),
  ]);
  return {
    ...counted,
    cards: rows.map((row) => ({
      messageId: row.action.cardMessageId ?? row.action.id,
      action: toAgentAction(row.action as ActionRow),
      decision: toActionDecision(row.action as ActionRow),
      agent: toAgentUser(row.agent),
    })),
  };
}

/** How many cards wait on the person (the nav's count, the tab's title, the app badge). */
export async function countWaitingCards(deps: CoreDeps, userRef: string): Promise<WaitingCount> {
  const user = await findUser(deps, userRef);
  return readCount(deps, user.id, deps.clock.now());
}

async function readCount(deps: CoreDeps, userId: string, now: Date): Promise<WaitingCount> {
  const [row] = await deps.db
    .select({ count: count(), next: min(actions.expiresAt) })
    .from(actions)
    .where(waitingOn(userId, now));
  return { count: row?.count ?? 0, nextExpiresAt: row?.next ? row.next.toISOString() : null };
}
