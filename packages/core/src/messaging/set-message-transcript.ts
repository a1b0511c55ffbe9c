import { schema } from "@switchboard/db";
import { and, eq, isNotNull, ne } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { appendEvents } from "../events/append-event";
import { toAgentUser } from "../identity/users";
import { MASKED_MESSAGE } from "./send-person-message";

const { messages, agentContacts, users } = schema;

/**
 * A person's voice note has its transcript: store it and tell the agent (`message.transcript`,
 * after its `message.received` by construction, masked without `messages:read`).
 */
export async function setMessageTranscript(
  deps: CoreDeps,
  messageId: string,
  text: string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const [message] = await tx
      .select()
      .from(messages)
      .where(eq(messages.id, messageId))
      .for("update");
    if (!message) throw new CoreError("message_not_found", `No message ${messageId}`);
    if (message.type !== "voice")
      throw new CoreError("validation_error", "Only voice notes have transcripts");
    const [row] = await tx
      .select({ contact: agentContacts, user: users })
      .from(agentContacts)
      .innerJoin(users, eq(users.id, agentContacts.userId))
      .where(
        and(
          eq(agentContacts.conversationId, message.conversationId),
          eq(agentContacts.userId, message.senderId),
          ne(agentContacts.agentId, message.senderId),
          isNotNull(agentContacts.conversationId),
        ),
      );
    if (!row)
      throw new CoreError(
        "validation_error",
        "Only a person's voice note to an agent gets a transcript here",
      );
    await tx.update(messages).set({ transcript: text }).where(eq(messages.id, messageId));
    const readable = row.contact.grantedScopes.includes("messages:read");
    await appendEvents(tx, now, [
      {
        agentId: row.contact.agentId,
        type: "message.transcript",
        payload: {
          conversationId: message.conversationId,
          messageId,
          from: toAgentUser(row.user),
          transcript: readable ? text : null,
          ...(!readable && { accessDenied: { scope: "messages:read", message: MASKED_MESSAGE } }),
        },
      },
    ]);
  });
}
