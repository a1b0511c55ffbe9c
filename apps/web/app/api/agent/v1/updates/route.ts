import { ops } from "@switchboard/contract";
import { pollEvents } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(
    ops.pollUpdates,
    ({ principal, deps, query, request }) =>
      pollEvents(
        deps,
        principal.agentId,
        query,
        request.signal,
        principal.tokenId,
        principal.eventsAfter,
      ),
    // The token's lookup also asks whether any event follows the cursor: "nothing new" is then
    // one statement for the whole call (a cursor the query schema refuses attaches nothing).
    { admission: (url) => ({ eventsAfter: cursorOf(url.searchParams.get("afterSeq")) }) },
  ),
);

function cursorOf(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}
