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
 * agent's own need no grant. An unknown message, or one outside the agent's conversations, is
 * `message_not_found`; a message without audio, or whose stored audio is gone, is `no_audio`.
 */
export async function getMessageAudio(
  deps: CoreDeps,
  agentId: string,
  messageId: string,
): Promise<MessageAudio> {
  const access = await checkAgentAccess(
    deps,
    agentId,
    { messageId },
    { scope: "messages:read", ownMessageExempt: true },
  ).catch((error) => {
    throw error instanceof CoreError && error.code === "not_found"
      ? new CoreError("message_not_found", `No message ${messageId}`)
      : error;
  });
  const audio = (access.message?.media as MessageMedia | null)?.audio;
  if (!audio) throw new CoreError("no_audio", "This message has no audio");
  const objectId = objectIdFromPath(audio.data);
  const stored = objectId ? await objectStoreOf(deps).get(deps.db, objectId) : null;
  if (!stored) throw new CoreError("no_audio", "The stored audio of this message is gone");
  return { bytes: stored.bytes, mimeType: stored.object.mimeType };
}
