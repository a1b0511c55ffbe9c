import { ops } from "@switchboard/contract";
import { getDevMe } from "@switchboard/core";
import { devRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  devRoute(ops.getDevMe, ({ principal, deps }) => getDevMe(deps, principal)),
);
