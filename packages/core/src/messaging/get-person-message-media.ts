import type { MessageMedia } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { assertSessionUserActive } from "../identity/users";
import { enforceRateLimit } from "../limits/rate-limit";
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
  const media = await openPersonMessageMedia(deps, userRef, messageId);
  return { ...media, bytes: await media.read(0, media.size) };
}

/**
 * The same media, opened but not read: its size and type, and `read` for a range of its bytes
 * (the console streams them, so a range request never loads the whole object).
 */
export async function openPersonMessageMedia(
  deps: CoreDeps,
  userRef: string,
  messageId: string,
): Promise<
  Omit<PersonMessageMedia, "bytes"> & {
    size: number;
    read(start: number, length: number): Promise<Buffer>;
  }
> {
  await findPersonChatMessage(deps, userRef, messageId);
  const [row] = await deps.db
    .select({ media: messages.media })
    .from(messages)
    .where(eq(messages.id, messageId));
  const media = (row?.media ?? {}) as MessageMedia;
  const kind = (["audio", "image", "video", "document"] as const).find((k) => media[k]?.data);
  const data = kind ? media[kind]?.data : undefined;
  const objectId = data ? objectIdFromPath(data) : null;
  const store = objectStoreOf(deps);
  const stored = objectId ? await store.head(deps.db, objectId) : null;
  if (!kind || !objectId || !stored || stored.deleted)
    throw new CoreError("not_found", "This message has no stored media");
  return {
    size: stored.size,
    mimeType: stored.mimeType,
    kind,
    name: kind === "document" ? (media.document?.name ?? null) : null,
    async read(start, length) {
      const bytes = await store.read(deps.db, objectId, start, length);
      if (!bytes) throw new CoreError("not_found", "This message has no stored media");
      return bytes;
    },
  };
}

/** Media reads one console session may make per minute (a video's seeks and a chat's images). */
export const CONSOLE_MEDIA_READS_PER_MIN = 300;

/**
 * Lets a console session read media: the person as they stand now (a suspended account or an
 * ended session is refused as every console call is) and at most CONSOLE_MEDIA_READS_PER_MIN
 * reads a minute per session (429 `rate_limited` past it), counted across processes.
 */
export async function admitConsoleMediaRead(
  deps: CoreDeps,
  user: { id: string; sessionId?: string | undefined },
): Promise<void> {
  await assertSessionUserActive(deps, user.id, user.sessionId);
  await enforceRateLimit(
    deps.db,
    deps.clock.now(),
    `console-media:${user.sessionId ?? user.id}`,
    CONSOLE_MEDIA_READS_PER_MIN,
    60,
    "media reads",
  );
}
