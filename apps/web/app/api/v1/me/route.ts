import { getDevMe } from "@switchboard/core";
import { devRoute, methods } from "~/server/api-route";
import { ok } from "~/server/responses";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: devRoute({}, async ({ principal, deps }) => ok(await getDevMe(deps, principal))),
});
