import type { MessageMedia } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { objectIdFromPath, objectStoreOf } from "../objects/object-store";
import type { MediaKind } from "../objects/prepare-media";
import { findPersonChatMessage } from "./person-chat";

const { messages } = schema;

export interface PersonMessageMedia {
  bytes: Buffer;
  /** The type stored with the object (for a document, what its sender declared). */
  mimeType: string;
  /** The message field the media came from: documents are never shown inline. */
  kind: MediaKind;
  /** A document's name as its sender gave it; null for other media. */
  name: string | null;
}

/**
 * The stored media of a message in one of the person's chats (a voice note to play, an image,
 * a video or a document to open), for the console to serve. Media given as an https URL is not
 * stored: the message carries the URL itself. `not_found` when there is nothing stored.
 */
export async function getPersonMessageMedia(
  deps: CoreDeps,
  userRef: string,
  messageId: string,
): Promise<PersonMessageMedia> {
  await findPersonChatMessage(deps, userRef, messageId);
  const [row] = await deps.db
    .select({ media: messages.media })
    .from(messages)
    .where(eq(messages.id, messageId));
  const media = (row?.media ?? {}) as MessageMedia;
  const kind = (["audio", "image", "video", "document"] as const).find((k) => media[k]?.data);
  const data = kind ? media[kind]?.data : undefined;
  const objectId = data ? objectIdFromPath(data) : null;
  const stored = objectId ? await objectStoreOf(deps).get(deps.db, objectId) : null;
  if (!kind || !stored) throw new CoreError("not_found", "This message has no stored media");
  return {
    bytes: stored.bytes,
    mimeType: stored.object.mimeType,
    kind,
    name: kind === "document" ? (media.document?.name ?? null) : null,
  };
}
