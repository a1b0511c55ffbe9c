import { ops } from "@switchboard/contract";
import { latestSeq } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.getUpdatesCursor, async ({ principal, deps }) => ({
    seq: await latestSeq(deps, principal.agentId),
  })),
);
