import { DevPostSelfMessageRequest } from "@switchboard/contract";
import { postSelfMessage } from "@switchboard/core";
import { devRoute, methods } from "~/server/api-route";
import { created } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: devRoute({ body: DevPostSelfMessageRequest }, async ({ principal, deps, body }) =>
    created(await postSelfMessage(deps, principal, body)),
  ),
});
