import { ops } from "@switchboard/contract";
import {
  type HistoryPage,
  historyAdmission,
  historyAnswer,
  historyKey,
  listAgentMessagesJson,
} from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

/** An id as the service mints them: only such input is read before its own checks have run. */
const plainId = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The page the raw URL asks for, read within the call's admission statement (one statement for
 * the whole call), when the path's id and the query are what the route's schemas accept; else
 * nothing is attached and the handler reads the page itself after the input's checks.
 */
function attachedPage(url: URL): HistoryPage | undefined {
  const conversationId = /\/conversations\/([^/]+)\/messages$/.exec(url.pathname)?.[1];
  const query = ops.listMessages.query.safeParse(Object.fromEntries(url.searchParams));
  if (!conversationId || !plainId.test(conversationId) || !query.success) return undefined;
  if (query.data.before !== undefined && !plainId.test(query.data.before)) return undefined;
  return { conversationId, ...query.data };
}

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(
    ops.listMessages,
    async ({ principal, deps, params, query }) => {
      const page = { conversationId: params.conversationId, ...query };
      const read = principal.column;
      return read?.key === historyKey(page) && read.text !== null
        ? historyAnswer(read.text, page)
        : listAgentMessagesJson(deps, principal.agentId, page.conversationId, query);
    },
    {
      admission: (url) => {
        const page = attachedPage(url);
        return page ? { column: historyAdmission(page) } : {};
      },
    },
  ),
);
