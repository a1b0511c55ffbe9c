import type { MessageMedia } from "@switchboard/contract";
import { checkAgentAccess } from "../consent/access";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { objectIdFromPath, objectStoreOf } from "../objects/object-store";

export interface MessageAudio {
  bytes: Buffer;
  mimeType: string;
}

/**
 * `GET /messages/{id}/audio`: a voice note's bytes, for the route to serve whole or by Range.
 * The person's notes need their `messages:read` (and the rest of the consent check); the
 * agent's own need no grant, unless their audio is someone else's object. An unknown message, or one outside the agent's conversations, is
 * `message_not_found`; a message without audio, or whose stored audio is gone, is `no_audio`.
 */
export async function getMessageAudio(
  deps: CoreDeps,
  agentId: string,
  messageId: string,
): Promise<MessageAudio> {
  const check = (ownMessageExempt: boolean) =>
    checkAgentAccess(
      deps,
      agentId,
      { messageId },
      { scope: "messages:read", ownMessageExempt },
    ).catch((error) => {
      throw error instanceof CoreError && error.code === "not_found"
        ? new CoreError("message_not_found", `No message ${messageId}`)
        : error;
    });
  const access = await check(true);
  const audio = (access.message?.media as MessageMedia | null)?.audio;
  if (!audio) throw new CoreError("no_audio", "This message has no audio");
  const objectId = objectIdFromPath(audio.data);
  const stored = objectId ? await objectStoreOf(deps).get(deps.db, objectId) : null;
  if (!stored) throw new CoreError("no_audio", "The stored audio of this message is gone");
  // The agent's own note carrying a person's audio (forwarded while it could read it) is that
  // person's audio: it needs their grant now, like their own note.
  if (stored.object.ownerId !== agentId && access.message?.senderId === agentId) await check(false);
  return { bytes: stored.bytes, mimeType: stored.object.mimeType };
}
