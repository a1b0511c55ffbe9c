import type {
  ActionDecision,
  AgentActionExecution,
  AgentDecision,
  DecisionCounts,
  DecisionCursor,
  PersonDecision,
  RecordCard,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { keyAt, newestFirst, type OrderKey, olderThan } from "../paging";
import { type ActionRow, rejectionOf, skillOf } from "./action-shape";

const { actions, users } = schema;

/** The most decisions one page carries (the export pages through all of them). */
export const MAX_DECISION_PAGE = 200;

type Fields = Record<string, unknown>;

/** How many top-level payload fields differ between what was proposed and what was approved. */
export function changedFields(proposed: Fields, approved: Fields | null): number {
  if (!approved) return 0;
  const names = new Set([...Object.keys(proposed), ...Object.keys(approved)]);
  let changed = 0;
  for (const name of names)
    if (JSON.stringify(proposed[name]) !== JSON.stringify(approved[name])) changed += 1;
  return changed;
}

type AuditColumns = Pick<
  ActionRow,
  | "state"
  | "resolvedAt"
  | "createdAt"
  | "decidedVia"
  | "decidedBy"
  | "payload"
  | "editedPayload"
  | "rejectionReason"
  | "rejectionChoice"
> &
  Partial<Pick<ActionRow, "approvedPayload">>;

/** What was approved: the stored approved payload, else (older rows) the edit or the proposal. */
function approvedOf(row: AuditColumns): Fields | null {
  if (row.state !== "approved") return null;
  return row.approvedPayload ?? row.editedPayload ?? row.payload;
}

/** A decided card's audit trail; null while pending. */
export function toActionDecision(row: AuditColumns): ActionDecision | null {
  if (row.state === "pending") return null;
  return {
    outcome: row.state,
    at: (row.resolvedAt ?? row.createdAt).toISOString(),
    via: row.decidedVia,
    decidedBy: row.decidedBy,
    changes: changedFields(row.payload, approvedOf(row)),
    rejection: row.state === "rejected" ? rejectionOf(row) : null,
  };
}

/** Decisions newest first: by when they were made. */
const decisionOrder: OrderKey = [actions.resolvedAt, actions.id];

interface Page {
  before?: DecisionCursor;
  limit?: number;
}

function pageBounds(page: Page) {
  const limit = page.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DECISION_PAGE)
    throw new CoreError("validation_error", `limit must be 1-${MAX_DECISION_PAGE}`, {
      issues: [{ path: "limit", message: `must be 1-${MAX_DECISION_PAGE}` }],
    });
  const before = page.before
    ? olderThan(decisionOrder, keyAt(new Date(page.before.at), page.before.actionId))
    : undefined;
  return { limit, before };
}

function nextCursor<T extends { at: string; actionId: string }>(
  items: T[],
  limit: number,
): DecisionCursor | null {
  const last = items[limit - 1];
  return items.length > limit && last ? { at: last.at, actionId: last.actionId } : null;
}

const decided = ne(actions.state, "pending");

/**
 * An agent's decided proposals for its owner's page: counts by outcome (an approval with changes
 * counts as `edited`) and a page of the decisions, newest first. Payloads stay with the people.
 */
export async function listAgentDecisions(
  deps: CoreDeps,
  agentId: string,
  page: Page = {},
): Promise<{ counts: DecisionCounts; decisions: AgentDecision[]; next: DecisionCursor | null }> {
  const { limit, before } = pageBounds(page);
  const edited = sql`${actions.state} = 'approved' and coalesce(${actions.approvedPayload}, ${actions.editedPayload}, ${actions.payload}) <> ${actions.payload}`;
  const [countRows, rows] = await Promise.all([
    deps.db
      .select({
        approved: sql<number>`count(*) filter (where ${actions.state} = 'approved' and not (${edited}))::int`,
        edited: sql<number>`count(*) filter (where ${edited})::int`,
        rejected: sql<number>`count(*) filter (where ${actions.state} = 'rejected')::int`,
        expired: sql<number>`count(*) filter (where ${actions.state} = 'expired')::int`,
      })
      .from(actions)
      .where(and(eq(actions.agentId, agentId), decided)),
    deps.db
      .select({
        action: actions,
        person: { id: users.id, num: users.num, displayName: users.displayName },
      })
      .from(actions)
      .innerJoin(users, eq(users.id, actions.userId))
      .where(and(eq(actions.agentId, agentId), decided, before))
      .orderBy(...newestFirst(decisionOrder))
      .limit(limit + 1),
  ]);
  const decisions = rows.map(({ action, person }) => ({
    ...(toActionDecision(action) as ActionDecision),
    actionId: action.id,
    title: action.title,
    kind: action.kind,
    skill: skillOf(action),
    person,
  }));
  return {
    counts: countRows[0] ?? { approved: 0, edited: 0, rejected: 0, expired: 0 },
    decisions: decisions.slice(0, limit),
    next: nextCursor(decisions, limit),
  };
}

/**
 * A person's own decisions (as the approver), newest first, with everything the card carried:
 * what was proposed and what was approved. Only ever the caller's own rows.
 */
export async function listPersonDecisions(
  deps: CoreDeps,
  userId: string,
  page: Page = {},
): Promise<{ decisions: PersonDecision[]; next: DecisionCursor | null }> {
  const { limit, before } = pageBounds(page);
  const rows = await deps.db
    .select({
      action: actions,
      agent: { id: users.id, num: users.num, displayName: users.displayName },
    })
    .from(actions)
    .innerJoin(users, eq(users.id, actions.agentId))
    .where(and(eq(actions.userId, userId), decided, before))
    .orderBy(...newestFirst(decisionOrder))
    .limit(limit + 1);
  const decisions = rows.map(({ action, agent }) => ({
    ...(toActionDecision(action) as ActionDecision),
    actionId: action.id,
    conversationId: action.conversationId,
    cardMessageId: action.cardMessageId,
    agent,
    title: action.title,
    description: action.description,
    kind: action.kind,
    skill: skillOf(action),
    proposedAt: action.createdAt.toISOString(),
    proposedPayload: action.payload,
    approvedPayload: approvedOf(action),
    execution: (action.execution as AgentActionExecution | null) ?? null,
  }));
  return { decisions: decisions.slice(0, limit), next: nextCursor(decisions, limit) };
}

/**
 * The cards that created some of a person's records (by a create skill, approved or run
 * automatically), so the records page can link each record to the card in its chat.
 */
export async function findRecordCards(
  deps: CoreDeps,
  userId: string,
  recordIds: string[],
): Promise<RecordCard[]> {
  if (recordIds.length === 0) return [];
  if (recordIds.length > MAX_DECISION_PAGE)
    throw new CoreError("validation_error", `at most ${MAX_DECISION_PAGE} records at once`);
  const recordId = sql<string>`${actions.execution}->>'recordId'`;
  const rows = await deps.db
    .select({
      recordId,
      actionId: actions.id,
      conversationId: actions.conversationId,
      cardMessageId: actions.cardMessageId,
      skill: actions.skill,
      auto: sql<boolean>`coalesce((${actions.execution}->>'auto')::boolean, false)`,
      agent: { id: users.id, num: users.num, displayName: users.displayName },
    })
    .from(actions)
    .innerJoin(users, eq(users.id, actions.agentId))
    .where(
      and(
        sql`${actions.execution} is not null`,
        inArray(recordId, recordIds),
        eq(actions.userId, userId),
        eq(actions.state, "approved"),
      ),
    )
    .orderBy(actions.createdAt);
  const byRecord = new Map<string, RecordCard>();
  for (const { skill, ...row } of rows)
    if (skill?.startsWith("create_") && !byRecord.has(row.recordId))
      byRecord.set(row.recordId, row);
  return [...byRecord.values()];
}
