import {
  type AgentAction,
  type AgentMessage,
  type AgentProposeActionRequest,
  createSkills,
  skillScope,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, count, eq } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics } from "../events/notifier";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { newId } from "../ids";
import { enqueueJob } from "../jobs/enqueue-job";
import { chargeSend } from "../limits/charge-send";
import { insertMessage, toAgentMessage } from "../messaging/compose-message";
import { toAgentAction } from "./action-shape";
import { checkCustomPayload, checkSkillPayload, runSkill } from "./run-skill";

const { actions, agentContacts } = schema;

const MIN_EXPIRY_MS = 60_000;
const MAX_EXPIRY_MS = 7 * 24 * 3600_000;
const DEFAULT_EXPIRY_MS = 24 * 3600_000;

/**
 * `POST /actions`: a proposal the person decides on a card in their 1:1 chat. The card is a
 * message (it counts as one, and as a proposal); a durable timer expires it. A create skill the
 * person set to auto-execute runs at once on their account, with no card decision and no
 * `action.*` event.
 */
export async function proposeAction(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentProposeActionRequest,
): Promise<{ action: AgentAction; message: AgentMessage; conversationId: string }> {
  const now = deps.clock.now();
  const expiresAt = request.expiresAt
    ? new Date(request.expiresAt)
    : new Date(now.getTime() + DEFAULT_EXPIRY_MS);
  const ahead = expiresAt.getTime() - now.getTime();
  if (ahead < MIN_EXPIRY_MS || ahead > MAX_EXPIRY_MS)
    throw new CoreError("invalid_expiry", "expiresAt must be between 60 seconds and 7 days ahead");
  const payload = request.skill
    ? (checkSkillPayload(request.skill, request.payload ?? {}) as Record<string, unknown>)
    : checkCustomPayload(request.payload ?? {});

  const access = await checkAgentAccess(
    deps,
    principal.agentId,
    { to: request.to, conversationId: request.conversationId },
    {
      // A skill also needs its own write scope; both are refused sends when missing.
      scope: request.skill ? ["messages:write", skillScope(request.skill)] : "messages:write",
      initiating: true,
    },
  );

  const result = await deps.db.transaction(async (tx) => {
    const [pending] = await tx
      .select({ n: count() })
      .from(actions)
      .where(and(eq(actions.conversationId, access.conversationId), eq(actions.state, "pending")));
    const max = deps.config.LIMIT_PENDING_PROPOSALS;
    if ((pending?.n ?? 0) >= max)
      throw new CoreError(
        "too_many_pending",
        `${max} proposals are already pending in this conversation`,
      );
    await chargeSend(tx, deps, {
      agentId: principal.agentId,
      recipientId: access.person.id,
      proposal: true,
    });

    const [contact] = await tx
      .select({ autoExecuteSkills: agentContacts.autoExecuteSkills })
      .from(agentContacts)
      .where(
        and(
          eq(agentContacts.userId, access.person.id),
          eq(agentContacts.agentId, principal.agentId),
        ),
      );
    const auto =
      request.skill !== undefined &&
      (createSkills as readonly string[]).includes(request.skill) &&
      (contact?.autoExecuteSkills ?? []).includes(request.skill);

    const id = newId("act");
    const card = await insertMessage(tx, deps, {
      conversationId: access.conversationId,
      senderId: principal.agentId,
      memberIds: [principal.agentId, access.person.id],
      input: { type: "text", content: request.title },
      agentActionId: id,
    });
    const execution =
      auto && request.skill
        ? await runSkill(tx, access.person.id, request.skill, payload, now, true)
        : null;
    const [row] = await tx
      .insert(actions)
      .values({
        id,
        agentId: principal.agentId,
        conversationId: access.conversationId,
        userId: access.person.id,
        kind: request.kind ?? (request.skill as string),
        title: request.title,
        description: request.description ?? null,
        payload,
        state: auto ? "approved" : "pending",
        skill: request.skill ?? null,
        execution,
        cardMessageId: card.id,
        expiresAt,
        createdAt: now,
        resolvedAt: auto ? now : null,
      })
      .returning();
    if (!auto)
      await enqueueJob(
        tx,
        "action_expire",
        { actionId: id },
        { runAt: expiresAt, jobKey: `expire:${id}` },
      );
    await notifyTopics(tx, [`user:${access.person.id}`]);
    return { row: row as NonNullable<typeof row>, card };
  });
  return {
    action: toAgentAction(result.row),
    message: toAgentMessage(result.card),
    conversationId: access.conversationId,
  };
}
