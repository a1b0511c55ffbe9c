import { type AgentMessage, PersonMessageInput } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { appendEvents } from "../events/append-event";
import { notifyTopics } from "../events/notifier";
import { findAgent } from "../identity/agents";
import { findUser, toAgentUser } from "../identity/users";
import { insertMessage, toAgentMessage } from "./compose-message";

const { agentContacts } = schema;

export const MASKED_MESSAGE =
  "The sender has not granted messages:read; the message content is withheld";

/**
 * A person writes to an agent in their 1:1 chat (console, CLI). The agent gets
 * `message.received` in the same transaction — masked when the person has not granted
 * `messages:read`; a voice note's event carries its audio, never the transcript. The message
 * opens the reply window of a replies-only person.
 */
export async function sendPersonMessage(
  deps: CoreDeps,
  fromRef: string,
  agentRef: string,
  input: unknown,
): Promise<{ message: AgentMessage; conversationId: string }> {
  const parsed = parseInput(PersonMessageInput, input);
  const user = await findUser(deps, fromRef);
  const agent = await findAgent(deps, agentRef);
  const [contact] = await deps.db
    .select()
    .from(agentContacts)
    .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
  if (!contact?.addedAt) throw new CoreError("not_a_contact", "Add the agent as a contact first");
  if (contact.blockedAt)
    throw new CoreError("blocked", "You blocked this agent; unblock it to write to it");
  if (user.suspendedAt) throw new CoreError("forbidden", "Your account is suspended");

  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const message = await insertMessage(tx, deps, {
      conversationId: contact.conversationId,
      senderId: user.id,
      memberIds: [user.id, agent.id],
      input: parsed,
    });
    await tx
      .update(agentContacts)
      .set({ lastInboundAt: now })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    const readable = contact.grantedScopes.includes("messages:read");
    const { transcript: _withheld, ...forEvent } = toAgentMessage(message, user.num);
    await notifyTopics(tx, [`user:${user.id}`]);
    await appendEvents(tx, now, [
      {
        agentId: agent.id,
        type: "message.received",
        payload: {
          conversationId: contact.conversationId,
          from: toAgentUser(user),
          message: readable ? forEvent : null,
          ...(!readable && { accessDenied: { scope: "messages:read", message: MASKED_MESSAGE } }),
        },
      },
    ]);
    return message;
  });
  return { message: toAgentMessage(row, user.num), conversationId: contact.conversationId };
}
