import type { Tx } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { type ObjectStore, objectPath } from "./object-store";
import { invalidMedia, type MediaInput, mimeFits } from "./prepare-media";

/**
 * Stores a prepared media field inside the send's transaction and answers what the message
 * carries: the `/objects/...` path of new bytes; an existing object's path once the sender may
 * use it (their own, or one sent in a conversation they are in) and its type fits the field;
 * an https URL as given.
 */
export async function storeMedia(
  tx: Tx,
  store: ObjectStore,
  media: MediaInput,
  senderId: string,
  now: Date,
): Promise<{ data: string; mimeType: string | null }> {
  const { source } = media;
  if (source.type === "url") return { data: source.url, mimeType: null };
  if (source.type === "bytes") {
    const stored = await store.put(tx, {
      ownerId: senderId,
      mimeType: source.mimeType,
      bytes: source.bytes,
      now,
    });
    return { data: objectPath(stored.id), mimeType: stored.mimeType };
  }
  const path = objectPath(source.id);
  const object = await store.head(tx, source.id);
  const usable =
    object &&
    !object.deleted &&
    (object.ownerId === senderId || (await sentToConversationOf(tx, path, senderId)));
  if (!object || !usable)
    throw invalidMedia(media.kind, media.field, "names no stored object you may use");
  if (!mimeFits(media.kind, object.mimeType))
    throw invalidMedia(media.kind, media.field, `names a ${object.mimeType} object`);
  return { data: path, mimeType: object.mimeType };
}

/** Whether some message in a conversation `userId` is a member of carries `path` as its media. */
async function sentToConversationOf(tx: Tx, path: string, userId: string): Promise<boolean> {
  const rows = await tx.execute<{ found: boolean }>(sql`
    select exists (
      select 1
      from conversation_members cm
      join messages m on m.conversation_id = cm.conversation_id
      where cm.user_id = ${userId}
        and m.media is not null
        and jsonb_path_exists(m.media, '$.*.data ? (@ == $path)', jsonb_build_object('path', ${path}::text))
    ) as found`);
  return Boolean(rows[0]?.found);
}
