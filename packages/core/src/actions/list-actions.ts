import {
  type AgentAction,
  type AgentListActionsQuery,
  type AgentPlatformSkill,
  createSkills,
  skillScope,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, desc, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { findAgent } from "../identity/agents";
import { findUser } from "../identity/users";
import { toAgentAction } from "./action-shape";

const { actions, agentContacts } = schema;

/** `GET /actions`: the agent's own proposals, newest first. */
export async function listAgentActions(
  deps: CoreDeps,
  agentId: string,
  query: AgentListActionsQuery,
): Promise<AgentAction[]> {
  const rows = await deps.db
    .select()
    .from(actions)
    .where(
      and(
        eq(actions.agentId, agentId),
        query.conversationId ? eq(actions.conversationId, query.conversationId) : undefined,
        query.state ? eq(actions.state, query.state) : undefined,
      ),
    )
    .orderBy(desc(actions.createdAt), desc(actions.id))
    .limit(query.limit);
  return rows.map(toAgentAction);
}

/** `GET /actions/{id}`: one of the agent's own proposals; anyone else's is 404. */
export async function getAgentAction(
  deps: CoreDeps,
  agentId: string,
  actionId: string,
): Promise<AgentAction> {
  const [row] = await deps.db
    .select()
    .from(actions)
    .where(and(eq(actions.id, actionId), eq(actions.agentId, agentId)));
  if (!row) throw new CoreError("not_found", `No proposal ${actionId}`);
  return toAgentAction(row);
}

/**
 * A person lets an agent run one create skill without asking (or stops it). Only the four
 * create skills can (`validation_error` otherwise), and only while the agent requests the
 * skill's `:write` scope and the person grants it (`scope_not_granted` with `scope`). The
 * person's row is read and changed under a row lock in one transaction, so two changes at once
 * cannot lose one another.
 */
export async function setAutoExecute(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  skill: string,
  enabled: boolean,
): Promise<void> {
  if (!(createSkills as readonly string[]).includes(skill))
    throw new CoreError(
      "validation_error",
      `Only ${createSkills.join(", ")} can run without a card`,
      {
        issues: [{ path: "skill", message: "not a create skill" }],
      },
    );
  const createSkill = skill as AgentPlatformSkill;
  const scope = skillScope(createSkill);
  const user = await findUser(deps, userRef);
  const agent = await findAgent(deps, agentRef);
  await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        skills: agentContacts.autoExecuteSkills,
        granted: agentContacts.grantedScopes,
        addedAt: agentContacts.addedAt,
      })
      .from(agentContacts)
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)))
      .for("update");
    if (!row?.addedAt) throw new CoreError("not_found", "Add the agent as a contact first");
    if (enabled && !agent.requestedScopes.includes(scope))
      throw new CoreError("scope_not_granted", `This agent does not request ${scope}`, { scope });
    if (enabled && !row.granted.includes(scope))
      throw new CoreError(
        "scope_not_granted",
        `Grant ${scope} to this agent before letting it ${skill} without asking`,
        { scope },
      );
    const skills = new Set(row.skills as AgentPlatformSkill[]);
    if (enabled) skills.add(createSkill);
    else skills.delete(createSkill);
    await tx
      .update(agentContacts)
      .set({ autoExecuteSkills: [...skills], updatedAt: deps.clock.now() })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    await notifyTopics(tx, [userTopic(user.id, "chats")]);
  });
}
