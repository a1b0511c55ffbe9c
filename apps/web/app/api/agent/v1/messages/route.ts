import { ops } from "@switchboard/contract";
import { sendAgentMessage } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(
    ops.sendMessage,
    ({ principal, deps, body }) => sendAgentMessage(deps, principal, body),
    // A repeat send lets its own call in: one statement for the whole call (decision 0083).
    { admitInSend: true },
  ),
);
