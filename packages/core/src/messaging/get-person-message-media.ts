import type { MessageMedia } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { objectIdFromPath, objectStoreOf } from "../objects/object-store";
import { findPersonChatMessage } from "./person-chat";

const { messages } = schema;

/**
 * The stored media of a message in one of the person's chats (a voice note to play, an image,
 * a video or a document to open), for the console to serve. Media given as an https URL is not
 * stored: the message carries the URL itself. `not_found` when there is nothing stored.
 */
export async function getPersonMessageMedia(
  deps: CoreDeps,
  userRef: string,
  messageId: string,
): Promise<{ bytes: Buffer; mimeType: string }> {
  await findPersonChatMessage(deps, userRef, messageId);
  const [row] = await deps.db
    .select({ media: messages.media })
    .from(messages)
    .where(eq(messages.id, messageId));
  const media = (row?.media ?? {}) as MessageMedia;
  const data = media.audio?.data ?? media.image?.data ?? media.video?.data ?? media.document?.data;
  const objectId = data ? objectIdFromPath(data) : null;
  const stored = objectId ? await objectStoreOf(deps).get(deps.db, objectId) : null;
  if (!stored) throw new CoreError("not_found", "This message has no stored media");
  return { bytes: stored.bytes, mimeType: stored.object.mimeType };
}
