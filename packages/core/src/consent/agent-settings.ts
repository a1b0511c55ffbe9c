import { type Initiation, Initiation as InitiationSchema } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { parseInput } from "../errors";
import { controlTopic } from "../events/agent-control";
import { notifyTopics, userTopic } from "../events/notifier";
import { findAgent } from "../identity/agents";
import { assertActive, findPerson, lockStanding } from "./contact-standing";

const { agentContacts } = schema;

/**
 * A person's settings for one agent. They hold whether or not the agent is a contact (a block
 * outlives removing the contact), so they create the person's row when needed.
 */
async function changeSetting(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  change: Partial<Pick<typeof agentContacts.$inferInsert, "initiation" | "blockedAt">>,
): Promise<void> {
  const user = await findPerson(deps, userRef);
  assertActive(user);
  const agent = await findAgent(deps, agentRef);
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await lockStanding(tx, user.id, agent.id, now);
    await tx
      .update(agentContacts)
      .set({ ...change, updatedAt: now })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    await notifyTopics(tx, [userTopic(user.id, "chats"), controlTopic(agent.id)]);
  });
}

/** `any` (the default): the agent may write first; `reply_only`: within 24 h of the person's last message. */
export async function setInitiation(
  deps: CoreDeps,
  userRef: string,
  agentRef: string,
  mode: Initiation,
): Promise<void> {
  const initiation = parseInput(InitiationSchema, mode, "mode");
  await changeSetting(deps, userRef, agentRef, { initiation });
}

/** Blocks the agent: sends, history, typing, read receipts, reactions and audio answer `blocked`. */
export function blockAgent(deps: CoreDeps, userRef: string, agentRef: string): Promise<void> {
  return changeSetting(deps, userRef, agentRef, { blockedAt: deps.clock.now() });
}

export function unblockAgent(deps: CoreDeps, userRef: string, agentRef: string): Promise<void> {
  return changeSetting(deps, userRef, agentRef, { blockedAt: null });
}
