import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { writeReadMark } from "./conversation-marks";

const { messages } = schema;

/**
 * `POST /conversations/{id}/read`: the agent has read up to `messageId` (a message of this
 * conversation); the person sees it. Needs `messages:write`; the mark never moves back.
 */
export async function markConversationRead(
  deps: CoreDeps,
  agentId: string,
  conversationId: string,
  messageId: string,
): Promise<void> {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { conversationId },
    { scope: "messages:write" },
  );
  const [message] = await deps.db
    .select({ pos: messages.pos })
    .from(messages)
    .where(and(eq(messages.id, messageId), eq(messages.conversationId, conversationId)));
  if (!message) throw new CoreError("not_found", `No message ${messageId} in this conversation`);
  await deps.db.transaction(async (tx) => {
    await writeReadMark(tx, conversationId, agentId, message.pos, deps.clock.now());
    await notifyTopics(tx, [userTopic(access.person.id, `chat:${conversationId}`)]);
  });
}
