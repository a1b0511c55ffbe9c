import { CoreError, decideAction, parseInput } from "@switchboard/core";
import { z } from "zod";
import { methods } from "~/server/api-route";
import { consoleMutation } from "~/server/console-mutation";
import { isMintedId } from "~/server/path-params";
import { ok } from "~/server/responses";

const DecisionBody = z.object({ decision: z.enum(["approve", "reject"]) });

/**
 * A card decided from its notification: the service worker posts `{ decision }` with the
 * person's session. Exactly the console's decide path (only the person asked, only while pending,
 * never past expiry): a card decided or expired elsewhere answers 409 `conflict` with its state
 * in words, which the notification shows.
 */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: (request, context) =>
    consoleMutation(request, async (deps, user, body) => {
      const actionId = String((await context.params).actionId ?? "");
      if (!isMintedId(actionId, "act"))
        throw new CoreError("not_found", "No such proposal for you");
      const { decision } = parseInput(DecisionBody, body);
      const action = await decideAction(deps, {
        userRef: user.id,
        actionId,
        approve: decision === "approve",
        via: "console",
      });
      return ok({ action });
    }),
});
