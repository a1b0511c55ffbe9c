import { addPushSubscription, removePushSubscription } from "@switchboard/core";
import { methods } from "~/server/api-route";
import { consoleMutation } from "~/server/console-mutation";
import { created, ok } from "~/server/responses";

/**
 * This browser's Web Push subscription for the signed-in person (docs/notifications.md): POST
 * the browser's `PushSubscription.toJSON()`, DELETE `{ endpoint }` (on sign-out, or from
 * Settings). The user agent names the device in Settings.
 */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: (request) =>
    consoleMutation(request, async (deps, user, body) =>
      created(await addPushSubscription(deps, user.id, body, request.headers.get("user-agent"))),
    ),
  DELETE: (request) =>
    consoleMutation(request, async (deps, user, body) =>
      ok({ removed: await removePushSubscription(deps, user.id, body) }),
    ),
});
