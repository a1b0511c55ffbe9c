import { ops } from "@switchboard/contract";
import { pollEvents } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.pollUpdates, ({ principal, deps, query, request }) =>
    pollEvents(deps, principal.agentId, query, request.signal, principal.tokenId),
  ),
);
