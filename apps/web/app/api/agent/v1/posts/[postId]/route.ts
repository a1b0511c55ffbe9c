import { ops } from "@switchboard/contract";
import { deleteAgentPost, getAgentPost } from "@switchboard/core";
import { agentRoute, routes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = routes(
  agentRoute(ops.getPost, ({ principal, deps, params }) =>
    getAgentPost(deps, principal.agentId, params.postId),
  ),
  agentRoute(ops.deletePost, ({ principal, deps, params }) =>
    deleteAgentPost(deps, principal.agentId, params.postId),
  ),
);
