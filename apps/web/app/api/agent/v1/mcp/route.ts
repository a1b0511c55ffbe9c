import { handleMcp } from "~/mcp/server";
import { methods } from "~/server/api-route";

/**
 * The Agent API over MCP (Streamable HTTP, stateless): POST only; no server-initiated stream, so
 * GET (and DELETE of a session) answer 405 as the transport allows.
 */
export const { GET, POST, PUT, PATCH, DELETE } = methods({ POST: handleMcp });
