import { type AgentAction, RejectionInput } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { agentOwnerTopics } from "../events/agent-control";
import { appendEvents } from "../events/append-event";
import { notifyTopics, type Topic, userTopic } from "../events/notifier";
import { findUser } from "../identity/users";
import { cancelJob, enqueueJob } from "../jobs/enqueue-job";
import { enqueueCardClosing } from "../notifications/send-push";
import { type ActionRow, skillOf, toAgentAction } from "./action-shape";
import { checkCustomPayload, checkSkillPayload, runSkill } from "./run-skill";

const { actions, agents } = schema;

export interface Decision {
  userRef: string;
  actionId: string;
  approve: boolean;
  /** The person's edit of the payload, validated like the original. */
  editedPayload?: unknown;
  /** Where the decision was made; it must be the proposal's own 1:1 conversation. */
  conversationId?: string;
  /** Which app decided, for the audit trail: the console's card, or the CLI (the default). */
  via?: "console" | "cli";
  /** The person's optional why, with a rejection only; the agent sees it as `action.rejection`. */
  rejection?: RejectionInput;
}

/**
 * A person approves (optionally with an edited payload) or rejects a pending proposal. Only the
 * approver, only in that 1:1 conversation, only before it expires: the row is locked, so a
 * decision racing the expiry timer has exactly one winner. An approved skill runs on the
 * approver's account in the same transaction, and the agent hears `action.approved` or
 * `action.rejected` with the whole action. The audit trail (who, from where, what was approved)
 * is written with the decision.
 */
export async function decideAction(deps: CoreDeps, decision: Decision): Promise<AgentAction> {
  const why = rejectionOf(decision);
  const user = await findUser(deps, decision.userRef);
  const now = deps.clock.now();
  const result = await deps.db.transaction(async (tx) => {
    const [locked] = await lockAction(tx, decision.actionId);
    if (locked?.action.userId !== user.id)
      throw new CoreError("not_found", `No proposal ${decision.actionId} for you`);
    const row = locked.action;
    if (decision.conversationId && decision.conversationId !== row.conversationId)
      throw new CoreError("forbidden", "Decide a proposal in the conversation where it was made");
    if (row.state !== "pending")
      throw new CoreError("conflict", `This proposal is already ${row.state}`);
    // Past its time but the timer has not run yet: it expires now (and that commits), then the
    // decision is refused below.
    if (row.expiresAt <= now) {
      await expireLocked(tx, locked, now);
      return null;
    }
    let editedPayload: Record<string, unknown> | null = null;
    let execution = null;
    const skill = skillOf(row);
    if (decision.approve) {
      if (decision.editedPayload !== undefined)
        editedPayload = skill
          ? checkSkillPayload(skill, decision.editedPayload, "editedPayload")
          : checkCustomPayload(decision.editedPayload, "editedPayload");
      if (skill)
        execution = await runSkill(tx, user.id, skill, editedPayload ?? row.payload, now, false);
    }
    const [updated] = await tx
      .update(actions)
      .set({
        state: decision.approve ? "approved" : "rejected",
        editedPayload,
        execution,
        resolvedAt: now,
        decidedBy: user.id,
        decidedVia: decision.via ?? "cli",
        approvedPayload: decision.approve ? (editedPayload ?? row.payload) : null,
        rejectionReason: why.reason,
        rejectionChoice: why.choice,
      })
      .where(eq(actions.id, row.id))
      .returning();
    const action = toAgentAction(updated as ActionRow);
    await cancelJob(tx, `expire:${row.id}`);
    await enqueueCardClosing(tx, [row]);
    await notifyTopics(tx, decidedTopics(locked));
    await appendEvents(tx, now, [
      {
        agentId: row.agentId,
        personId: row.userId,
        type: decision.approve ? "action.approved" : "action.rejected",
        payload: { conversationId: row.conversationId, action },
      },
    ]);
    return action;
  });
  if (!result) throw new CoreError("conflict", "This proposal has expired");
  return result;
}

/**
 * The why of a rejection, checked before anything is locked (the CLI's and the console's input
 * alike): a blank reason is none. An approval carries no reason.
 */
function rejectionOf(decision: Decision) {
  if (decision.approve && decision.rejection !== undefined)
    throw new CoreError("validation_error", "A reason goes only with a rejection", {
      issues: [{ path: "reason", message: "give a reason only when rejecting" }],
    });
  const { reason, choice } = parseInput(RejectionInput, decision.rejection ?? {});
  return { reason: reason || null, choice: choice ?? null };
}

/**
 * A proposal, locked for its decision, with the agent's owner: read in the same statement, so
 * the owner's open agent page hears of the decision at no extra round trip.
 */
function lockAction(tx: Tx, actionId: string) {
  return tx
    .select({ action: actions, ownerId: agents.ownerId })
    .from(actions)
    .leftJoin(agents, eq(agents.id, actions.agentId))
    .where(eq(actions.id, actionId))
    .for("update", { of: actions });
}

type LockedAction = { action: ActionRow; ownerId: string | null };

/**
 * Who hears of a decision: the person, in the card's chat, what waits on them, and their records pages (which list
 * their decisions), and the agent's owner, whose agent page counts and lists decisions.
 */
function decidedTopics({ action, ownerId }: LockedAction): Topic[] {
  const topics = [
    userTopic(action.userId, `chat:${action.conversationId}`),
    userTopic(action.userId, "cards"),
    userTopic(action.userId, "records"),
  ];
  if (ownerId) topics.push(userTopic(ownerId, `activity:${action.agentId}`));
  return topics;
}

async function expireLocked(tx: Tx, locked: LockedAction, now: Date) {
  const row = locked.action;
  const [updated] = await tx
    .update(actions)
    .set({ state: "expired", resolvedAt: now, decidedVia: "expiry" })
    .where(eq(actions.id, row.id))
    .returning();
  await enqueueCardClosing(tx, [row]);
  await notifyTopics(tx, decidedTopics(locked));
  await appendEvents(tx, now, [
    {
      agentId: row.agentId,
      personId: row.userId,
      type: "action.expired",
      payload: { conversationId: row.conversationId, action: toAgentAction(updated as ActionRow) },
    },
  ]);
}

/**
 * A person who removes an agent has said no to what it still asks of them: its pending proposals
 * to them are rejected with the removal (inside its transaction), and the agent hears
 * `action.rejected` for each. Their expiry timers find them decided and do nothing.
 */
export async function rejectPendingProposals(
  tx: Tx,
  agentId: string,
  userId: string,
  now: Date,
): Promise<void> {
  const rejected = await tx
    .update(actions)
    .set({ state: "rejected", resolvedAt: now, decidedBy: userId, decidedVia: "contact_removed" })
    .where(
      and(eq(actions.agentId, agentId), eq(actions.userId, userId), eq(actions.state, "pending")),
    )
    .returning();
  if (rejected.length === 0) return;
  await enqueueCardClosing(tx, rejected);
  // The owner's agent page lists them ("rejected (agent removed)"): a rare path, its own lookup.
  await notifyTopics(tx, await agentOwnerTopics(tx, [agentId], (id) => `activity:${id}`));
  await appendEvents(
    tx,
    now,
    rejected.map((row) => ({
      agentId,
      personId: userId,
      type: "action.rejected" as const,
      payload: { conversationId: row.conversationId, action: toAgentAction(row as ActionRow) },
    })),
  );
}

/**
 * The expiry timer: a proposal nobody decided by `expiresAt` expires (fail-closed). A timer
 * that fires a moment early (clock skew between the queue and this process) is set again.
 */
export async function expireAction(
  deps: CoreDeps,
  actionId: string,
): Promise<"expired" | "decided" | "rescheduled"> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [locked] = await lockAction(tx, actionId);
    if (locked?.action.state !== "pending") return "decided";
    const row = locked.action;
    if (row.expiresAt > now) {
      await enqueueJob(
        tx,
        "action_expire",
        { actionId },
        { runAt: row.expiresAt, jobKey: `expire:${actionId}` },
      );
      return "rescheduled";
    }
    await expireLocked(tx, locked, now);
    return "expired";
  });
}
