import { type AgentMessage, PersonMessageInput } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { appendEvents } from "../events/append-event";
import { type Topic, userTopic, wakeAfterCommit } from "../events/notifier";
import { toAgentUser } from "../identity/users";
import { insertMessage, toAgentMessage } from "../sending/compose-message";
import { prepareMessage } from "../sending/prepare-message";
import { messageReceivedEvent } from "./message-events";
import { findPersonChat } from "./person-chat";
import { enqueueTranscription } from "./transcribe-voice-note";

const { agentContacts } = schema;

/**
 * A person writes to an agent in their 1:1 chat (console, CLI): any of the eight types, captions
 * optional. `toAgentRef` is the agent's id or `800-` number, or the conversation id. The person
 * must have the agent in their contacts and not have blocked it. In one transaction: the
 * message, the person's reply window reopened (`lastInboundAt`), their open apps woken, and
 * `message.received` for the agent — masked, when read, without their `messages:read`; a voice
 * note's event carries its audio, never a transcript (a job transcribes it, when it has none).
 */
export async function sendPersonMessage(
  deps: CoreDeps,
  fromUserRef: string,
  toAgentRef: string,
  input: unknown,
): Promise<{ message: AgentMessage; conversationId: string }> {
  const prepared = prepareMessage(deps, parseInput(PersonMessageInput, input));
  const chat = await findPersonChat(deps, fromUserRef, toAgentRef, { forSending: true });
  const { user, agent, contact, conversationId, ownerId } = chat;
  if (user.suspendedAt) throw new CoreError("account_suspended", "Your account is suspended");
  if (contact.blockedAt)
    throw new CoreError("blocked", "You blocked this agent; unblock it to write to it");
  if (!contact.addedAt)
    throw new CoreError("not_a_contact", "Add the agent to your contacts before writing to it");

  const now = deps.clock.now();
  // The wake-ups go out once the message commits (decision 0077), not inside its transaction.
  let wakes: Topic[] = [];
  const message = await deps.db.transaction(async (tx) => {
    wakes = [
      userTopic(user.id, `chat:${conversationId}`),
      ...(ownerId ? [userTopic(ownerId, `activity:${agent.id}`)] : []),
    ];
    const row = await insertMessage(tx, deps, { conversationId, senderId: user.id, prepared });
    await tx
      .update(agentContacts)
      .set({ lastInboundAt: now })
      .where(and(eq(agentContacts.userId, user.id), eq(agentContacts.agentId, agent.id)));
    const message = toAgentMessage(row, user.num);
    await appendEvents(
      tx,
      now,
      [messageReceivedEvent(agent.id, toAgentUser(user), message)],
      wakes,
    );
    await enqueueTranscription(tx, row);
    return message;
  });
  void wakeAfterCommit(deps.sql, wakes);
  return { message, conversationId };
}
