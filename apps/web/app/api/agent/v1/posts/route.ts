import { ops } from "@switchboard/contract";
import { createPost, listAgentPosts } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.createPost, ({ principal, deps, body }) => createPost(deps, principal, body)),
  agentRoute(ops.listPosts, ({ principal, deps, query }) =>
    listAgentPosts(deps, principal.agentId, query),
  ),
);
