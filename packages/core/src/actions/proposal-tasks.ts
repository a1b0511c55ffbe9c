import type { AgentAction, AgentMessage } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { keyAt, newestFirst, type OrderKey, olderThan } from "../paging";
import { toAgentMessage } from "../sending/compose-message";
import { parkUntilWoken } from "../updates/park-until-woken";
import { type ActionRow, toAgentAction } from "./action-shape";

const { actions, messages } = schema;

/**
 * A proposal as the MCP endpoint's tasks read it (decision 0069): the action row is the task,
 * so the state lives where every process reads it and there is nothing else to keep or clean up.
 * Every read is scoped to the calling agent: another agent's proposal is not found.
 */
export interface Proposal {
  action: AgentAction;
  /** The card, as `POST /actions` answered it; absent only for a row that never had one. */
  message?: AgentMessage;
  conversationId: string;
}

const proposalOf = (row: ActionRow, card: typeof messages.$inferSelect | null): Proposal => ({
  action: toAgentAction(row),
  ...(card && { message: toAgentMessage(card) }),
  conversationId: row.conversationId,
});

/** One of the agent's own proposals with its card, or null (unknown, or another agent's). */
export async function findProposal(
  deps: CoreDeps,
  agentId: string,
  actionId: string,
): Promise<Proposal | null> {
  const [found] = await deps.db
    .select({ action: actions, card: messages })
    .from(actions)
    .leftJoin(messages, eq(messages.id, actions.cardMessageId))
    .where(and(eq(actions.id, actionId), eq(actions.agentId, agentId)));
  return found ? proposalOf(found.action, found.card) : null;
}

/** Where a page of proposals starts: after this one, newest first. */
export interface ProposalCursor {
  createdAt: Date;
  id: string;
}

const proposalOrder: OrderKey = [actions.createdAt, actions.id];

/** A page of the agent's own proposals, newest first, and where the next page starts. */
export async function listProposalPage(
  deps: CoreDeps,
  agentId: string,
  after: ProposalCursor | undefined,
  limit: number,
): Promise<{ actions: AgentAction[]; next?: ProposalCursor }> {
  const rows = await deps.db
    .select()
    .from(actions)
    .where(
      and(
        eq(actions.agentId, agentId),
        after && olderThan(proposalOrder, keyAt(after.createdAt, after.id)),
      ),
    )
    .orderBy(...newestFirst(proposalOrder))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    actions: page.map(toAgentAction),
    ...(rows.length > limit && last && { next: { createdAt: last.createdAt, id: last.id } }),
  };
}

/**
 * Waits until the agent's proposal is decided (or expired), at most `maxMs`: parks like a
 * long-poll (one of the agent's LONGPOLL_MAX_PARKED leases, `rate_limited` past them), woken by
 * the agent's event-log notification that every decision commits with, from any process. Ends
 * early when `signal` aborts or the process drains. Answers the proposal as last read (still
 * pending when the wait ended first), or null when it is not the agent's.
 */
export async function waitForDecision(
  deps: CoreDeps,
  agentId: string,
  actionId: string,
  maxMs: number,
  signal?: AbortSignal,
): Promise<Proposal | null> {
  return parkUntilWoken(deps, agentId, {
    first: await findProposal(deps, agentId, actionId),
    read: () => findProposal(deps, agentId, actionId),
    ready: (proposal) => proposal?.action.state !== "pending",
    maxMs,
    signal,
  });
}
