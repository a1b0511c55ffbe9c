import { schema } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { fetchRemoteMedia } from "../objects/fetch-remote-media";

const { agentContacts, agentPictures, users } = schema;

/** The largest avatar the console shows (a row's picture is 34 px). */
export const AVATAR_MAX_BYTES = 512 * 1024;

/** How long a fetched picture is served before the agent's server is asked for it again. */
export const AVATAR_KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * The picture of an agent the person has a chat with, for the console to serve from its own
 * origin: the agent's `avatarUrl` is its own server's address, and the person's browser never
 * loads it (that would tell the agent who looks and when). It is fetched as a message's remote
 * image is (public addresses only, each redirect checked, recognised by its content: png, jpeg,
 * gif or webp, never SVG), within AVATAR_MAX_BYTES, and kept for everyone for AVATAR_KEEP_MS
 * (a changed `avatarUrl` is fetched at once); while the agent's server fails, the kept picture
 * of the same URL is served past that. `not_found` when the person has no chat with the agent
 * or it has no picture; the fetch's refusals otherwise (the console then shows the agent's
 * initial).
 */
export async function getChatAgentAvatar(
  deps: CoreDeps,
  userId: string,
  agentId: string,
): Promise<{ bytes: Buffer; mimeType: string }> {
  const [row] = await deps.db
    .select({
      avatarUrl: users.avatarUrl,
      kept: {
        sourceUrl: agentPictures.sourceUrl,
        mimeType: agentPictures.mimeType,
        bytes: agentPictures.data,
        fetchedAt: agentPictures.fetchedAt,
      },
    })
    .from(agentContacts)
    .innerJoin(users, eq(users.id, agentContacts.agentId))
    .leftJoin(agentPictures, eq(agentPictures.agentId, users.id))
    .where(and(eq(agentContacts.userId, userId), eq(agentContacts.agentId, agentId)))
    .limit(1);
  if (!row?.avatarUrl) throw new CoreError("not_found", "This agent has no picture for you");
  const kept = row.kept?.sourceUrl === row.avatarUrl ? row.kept : null;
  const now = deps.clock.now();
  const keptPicture = kept && { bytes: kept.bytes, mimeType: kept.mimeType };
  if (keptPicture && now.getTime() - kept.fetchedAt.getTime() < AVATAR_KEEP_MS) return keptPicture;
  try {
    const picture = await fetchPicture(deps, row.avatarUrl);
    const stored = { sourceUrl: row.avatarUrl, ...picture, fetchedAt: now };
    await deps.db
      .insert(agentPictures)
      .values({ agentId, ...stored, data: picture.bytes })
      .onConflictDoUpdate({
        target: agentPictures.agentId,
        set: {
          sourceUrl: stored.sourceUrl,
          mimeType: picture.mimeType,
          data: picture.bytes,
          fetchedAt: now,
        },
      });
    return picture;
  } catch (error) {
    if (keptPicture) return keptPicture;
    throw error;
  }
}

async function fetchPicture(
  deps: CoreDeps,
  url: string,
): Promise<{ bytes: Buffer; mimeType: string }> {
  const fetched = await fetchRemoteMedia(
    deps.config,
    { kind: "image", field: "avatarUrl", source: { type: "url", url } },
    AVATAR_MAX_BYTES,
  );
  if (fetched.source.type !== "bytes")
    throw new CoreError("media_fetch_failed", "avatarUrl: could not be fetched");
  return { bytes: fetched.source.bytes, mimeType: fetched.source.mimeType };
}
