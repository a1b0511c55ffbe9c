import {
  type AgentAction,
  type AgentMessage,
  type AgentProposeActionRequest,
  createSkills,
  skillScope,
} from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, count, eq, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { userTopic } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { newId } from "../ids";
import { enqueueJob } from "../jobs/enqueue-job";
import { enqueueCardPush } from "../notifications/send-push";
import { insertMessage, toAgentMessage } from "../sending/compose-message";
import { accessForSend, runSend } from "../sending/send-sequence";
import { toAgentAction } from "./action-shape";
import { checkCustomPayload, checkSkillPayload, runSkill } from "./run-skill";

const { actions, agentContacts } = schema;

const MIN_EXPIRY_MS = 60_000;
const MAX_EXPIRY_MS = 7 * 24 * 3600_000;
const DEFAULT_EXPIRY_MS = 24 * 3600_000;

/**
 * `POST /actions`: a proposal the person decides on a card in their 1:1 chat, through the send
 * sequence. The card is a message (it counts as one, and as a proposal); a durable timer expires
 * it. At most LIMIT_PENDING_PROPOSALS are pending per conversation, counted under a lock on the
 * conversation's proposals so concurrent proposals cannot all pass the count. A create skill the
 * person set to auto-execute runs at once on their account, with no card decision and no
 * `action.*` event.
 */
export async function proposeAction(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentProposeActionRequest,
): Promise<{ action: AgentAction; message: AgentMessage; conversationId: string }> {
  const { agentId } = principal;
  const now = deps.clock.now();
  return runSend(deps, {
    agentId,
    charge: "proposal",
    prepare: () => {
      const expiresAt = request.expiresAt
        ? new Date(request.expiresAt)
        : new Date(now.getTime() + DEFAULT_EXPIRY_MS);
      const ahead = expiresAt.getTime() - now.getTime();
      if (ahead < MIN_EXPIRY_MS || ahead > MAX_EXPIRY_MS)
        throw new CoreError(
          "invalid_expiry",
          "expiresAt must be between 60 seconds and 7 days ahead",
        );
      const payload = request.skill
        ? checkSkillPayload(request.skill, request.payload ?? {})
        : checkCustomPayload(request.payload ?? {});
      return { expiresAt, payload };
    },
    access: () =>
      accessForSend(
        deps,
        agentId,
        { to: request.to, conversationId: request.conversationId },
        // A skill also needs its own write scope; both are refused sends when missing.
        request.skill ? ["messages:write", skillScope(request.skill)] : "messages:write",
      ),
    check: (tx, _prepared, access) => checkPendingLimit(tx, deps, access.conversationId),
    store: async (tx, { expiresAt, payload }, access) => {
      const [contact] = await tx
        .select({ autoExecuteSkills: agentContacts.autoExecuteSkills })
        .from(agentContacts)
        .where(and(eq(agentContacts.userId, access.person.id), eq(agentContacts.agentId, agentId)));
      const skill = request.skill;
      const auto =
        skill !== undefined &&
        (createSkills as readonly string[]).includes(skill) &&
        (contact?.autoExecuteSkills ?? []).includes(skill);

      const id = newId("act");
      const card = await insertMessage(tx, deps, {
        conversationId: access.conversationId,
        senderId: agentId,
        input: { type: "text", content: request.title },
        agentActionId: id,
      });
      const execution =
        auto && skill ? await runSkill(tx, access.person.id, skill, payload, now, true) : null;
      const [row] = await tx
        .insert(actions)
        .values({
          id,
          agentId,
          conversationId: access.conversationId,
          userId: access.person.id,
          kind: request.kind ?? skill ?? "",
          title: request.title,
          description: request.description ?? null,
          payload,
          state: auto ? "approved" : "pending",
          skill: skill ?? null,
          execution,
          cardMessageId: card.id,
          expiresAt,
          createdAt: now,
          resolvedAt: auto ? now : null,
          // Nobody decided: the person's standing auto-execute setting did.
          ...(auto && { decidedVia: "auto_execute" as const, approvedPayload: payload }),
        })
        .returning();
      if (!row) throw new Error("action insert returned nothing");
      if (!auto) {
        await enqueueJob(
          tx,
          "action_expire",
          { actionId: id },
          { runAt: expiresAt, jobKey: `expire:${id}` },
        );
        await enqueueCardPush(tx, { id, userId: access.person.id, expiresAt }, now);
      }
      return {
        result: {
          action: toAgentAction(row),
          message: toAgentMessage(card),
          conversationId: access.conversationId,
        },
        wake: [
          userTopic(access.person.id, `chat:${access.conversationId}`),
          userTopic(access.person.id, "cards"),
        ],
      };
    },
  });
}

/** Any constant works as long as every process uses the same one (the two-key lock space). */
const PENDING_PROPOSALS_LOCK = 0x5b0ac7;

/**
 * 409 `too_many_pending` when the conversation already has its maximum of pending proposals.
 * The count runs under a transaction lock on the conversation's proposals, held to commit, so a
 * concurrent proposal waits and then counts this one too.
 */
async function checkPendingLimit(tx: Tx, deps: CoreDeps, conversationId: string): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(${PENDING_PROPOSALS_LOCK}, hashtext(${conversationId}))`,
  );
  const [pending] = await tx
    .select({ n: count() })
    .from(actions)
    .where(and(eq(actions.conversationId, conversationId), eq(actions.state, "pending")));
  const max = deps.config.LIMIT_PENDING_PROPOSALS;
  if ((pending?.n ?? 0) >= max)
    throw new CoreError(
      "too_many_pending",
      `${max} proposals are already pending in this conversation`,
    );
}
