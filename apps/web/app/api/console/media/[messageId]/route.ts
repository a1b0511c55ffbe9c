import { admitConsoleMediaRead, openPersonMessageMedia } from "@switchboard/core";
import { getSessionUser } from "~/auth/session";
import { getDeps } from "~/server/deps";
import { isMintedId } from "~/server/path-params";
import { errorResponse, toErrorResponse } from "~/server/responses";
import { streamedObjectResponse } from "~/server/stored-object";

/**
 * The stored media of a message in the signed-in person's chat, for the console's players and
 * images (with Range, so a voice note can be sought). Documents download; see
 * `storedObjectResponse` for why nothing here can run in the console's origin. The person must
 * stand as every console call needs (not suspended, session not ended), each session reads at
 * most a bounded number a minute, and only the range asked for is read from the store, as it
 * is sent. Errors use the API envelope.
 */
export async function GET(
  request: Request,
  { params }: { params: Promise<{ messageId: string }> },
): Promise<Response> {
  const user = await getSessionUser();
  if (!user) return errorResponse("unauthorized", "Sign in to the console first");
  const { messageId } = await params;
  if (!isMintedId(messageId, "msg"))
    return errorResponse("not_found", "This message has no stored media");
  try {
    const deps = getDeps();
    await admitConsoleMediaRead(deps, user);
    return await streamedObjectResponse(
      request,
      await openPersonMessageMedia(deps, user.id, messageId),
    );
  } catch (error) {
    return toErrorResponse(error, crypto.randomUUID());
  }
}
