import type { MessageMedia } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { objectIdFromPath, postgresObjectStore } from "../objects/object-store";

const { messages, conversationMembers } = schema;

/**
 * `GET /messages/{id}/audio`: a voice note's bytes. The agent's own notes need no grant; the
 * person's need their `messages:read`. Audio that is gone answers `no_audio`, like none at all.
 */
export async function getMessageAudio(deps: CoreDeps, agentId: string, messageId: string) {
  const [row] = await deps.db
    .select({ message: messages })
    .from(messages)
    .innerJoin(
      conversationMembers,
      and(
        eq(conversationMembers.conversationId, messages.conversationId),
        eq(conversationMembers.userId, agentId),
      ),
    )
    .where(eq(messages.id, messageId));
  if (!row) throw new CoreError("message_not_found", `No message ${messageId}`);
  const audio = (row.message.media as MessageMedia | null)?.audio;
  if (!audio) throw new CoreError("no_audio", "This message has no audio");
  if (row.message.senderId !== agentId)
    await checkAgentAccess(
      deps,
      agentId,
      { conversationId: row.message.conversationId },
      { scope: "messages:read" },
    );
  const objectId = objectIdFromPath(audio.data);
  const stored = objectId ? await postgresObjectStore.get(deps.db, objectId) : null;
  if (!stored) throw new CoreError("no_audio", "The stored audio of this message is gone");
  return { bytes: stored.bytes, mimeType: stored.object.mimeType };
}
