import { ops } from "@switchboard/contract";
import { postSelfMessage } from "@switchboard/core";
import { devRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  devRoute(ops.postSelfMessage, ({ principal, deps, body }) =>
    postSelfMessage(deps, principal, body),
  ),
);
