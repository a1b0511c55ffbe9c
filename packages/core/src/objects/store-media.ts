import type { Tx } from "@switchboard/db";
import { sql } from "drizzle-orm";
import { assertStorageQuota, type StorageQuotas } from "../limits/storage-quota";
import { type ObjectStore, objectPath } from "./object-store";
import { invalidMedia, type MediaInput, mimeFits } from "./prepare-media";

/**
 * Stores a prepared media field inside the send's transaction and answers what the message
 * carries: the `/objects/...` path of new bytes (within the sender's storage quotas); an existing object's path once the sender may
 * use it (`mayUseObject`) and its type fits the field; an https URL as given.
 */
export async function storeMedia(
  tx: Tx,
  store: ObjectStore,
  media: MediaInput,
  senderId: string,
  now: Date,
  quotas: StorageQuotas,
): Promise<{ data: string; mimeType: string | null }> {
  const { source } = media;
  if (source.type === "url") return { data: source.url, mimeType: null };
  if (source.type === "bytes") {
    await assertStorageQuota(tx, quotas, senderId, source.bytes.length);
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
    (object.ownerId === senderId || (await mayReadSentObject(tx, path, senderId)));
  if (!object || !usable)
    throw invalidMedia(media.kind, media.field, "names no stored object you may use");
  if (!mimeFits(media.kind, object.mimeType))
    throw invalidMedia(media.kind, media.field, `names a ${object.mimeType} object`);
  return { data: path, mimeType: object.mimeType };
}

/**
 * Whether `userId` may reuse another account's object: some message of someone else in one of
 * their conversations carries it, and they may read that message now. A person reads everything
 * in their chats; an agent only what a person sent it while that person grants it
 * `messages:read` (added, not blocked, not suspended) — so a path seen once is no way back to a
 * person's media after the grant is gone, and an object never sent to the agent is unknown.
 */
async function mayReadSentObject(tx: Tx, path: string, userId: string): Promise<boolean> {
  const rows = await tx.execute<{ found: boolean }>(sql`
    select exists (
      select 1
      from conversation_members cm
      join users me on me.id = cm.user_id
      join messages m on m.conversation_id = cm.conversation_id
      left join users sender on sender.id = m.sender_id
      left join agent_contacts c on c.user_id = m.sender_id and c.agent_id = cm.user_id
      where cm.user_id = ${userId}
        and m.media is not null
        and jsonb_path_exists(m.media, '$.*.data ? (@ == $path)', jsonb_build_object('path', ${path}::text))
        and (me.user_type <> 'agent' or (
          m.sender_id <> ${userId} and c.added_at is not null and c.blocked_at is null and sender.suspended_at is null
          and 'messages:read' = any(c.granted_scopes)))
    ) as found`);
  return Boolean(rows[0]?.found);
}
