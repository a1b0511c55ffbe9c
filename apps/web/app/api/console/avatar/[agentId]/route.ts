import { admitConsoleMediaRead, getChatAgentAvatar } from "@switchboard/core";
import { getSessionUser } from "~/auth/session";
import { getDeps } from "~/server/deps";
import { isMintedId } from "~/server/path-params";
import { errorResponse, toErrorResponse } from "~/server/responses";
import { STORED_OBJECT_HEADERS } from "~/server/stored-object";

/**
 * The picture of an agent the signed-in person has a chat with, served from the console's own
 * origin: the browser never loads the agent's `avatarUrl` itself. Core fetches it as it fetches
 * a message's remote image (public addresses, bounded, png/jpeg/gif/webp by content), and each
 * read counts toward the session's media reads. Core keeps a fetched picture for a day, for
 * everyone (the agent's server is asked about once a day, not per person or per view); the
 * browser keeps it for an hour; the console names it with a version of the URL, so a new picture
 * is a new address. Errors use the API envelope (the console shows the agent's initial instead).
 */
export async function GET(
  _request: Request,
  { params }: { params: Promise<{ agentId: string }> },
): Promise<Response> {
  const user = await getSessionUser();
  if (!user) return errorResponse("unauthorized", "Sign in to the console first");
  const { agentId } = await params;
  if (!isMintedId(agentId, "agt")) return errorResponse("not_found", "There is no such agent");
  try {
    const deps = getDeps();
    await admitConsoleMediaRead(deps, user);
    const picture = await getChatAgentAvatar(deps, user.id, agentId);
    return new Response(new Uint8Array(picture.bytes), {
      headers: {
        ...STORED_OBJECT_HEADERS,
        "Content-Type": picture.mimeType,
        "Content-Length": String(picture.bytes.length),
        "Cache-Control": "private, max-age=3600",
      },
    });
  } catch (error) {
    return toErrorResponse(error, crypto.randomUUID());
  }
}
