import type autocannon from "autocannon";
import type { sendingContacts } from "./api-fixture";

/**
 * Agent API calls through MCP, as an MCP client sends them once initialized: one stateless
 * `tools/call` JSON-RPC POST to /api/agent/v1/mcp (the endpoint authenticates every request and
 * keeps no session, so no initialize round trip precedes a call).
 */
const MCP_PATH = "/api/agent/v1/mcp";
const MCP_HEADERS = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-protocol-version": "2025-11-25",
};

type Contact = Awaited<ReturnType<typeof sendingContacts>>[number];

const toolCall = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });

/** One tool call by one agent, the same request every time. */
export function mcpCall(
  auth: string,
  name: string,
  args: Record<string, unknown> = {},
): autocannon.Request {
  return {
    method: "POST",
    path: MCP_PATH,
    headers: { ...MCP_HEADERS, authorization: auth },
    body: toolCall(name, args),
  };
}

/** The `sendMessage` tool from each contact's agent in turn, like `sendsInTurn` over REST. */
export function mcpSendsInTurn(contacts: Contact[], content: string): autocannon.Request {
  let next = 0;
  return {
    method: "POST",
    path: MCP_PATH,
    setupRequest: (request) => {
      const contact = contacts[next++ % contacts.length] as Contact;
      return {
        ...request,
        headers: { ...MCP_HEADERS, authorization: contact.auth },
        body: toolCall("sendMessage", { to: contact.person.num, type: "text", content }),
      };
    },
  };
}

/**
 * A tool error is a 200 answer, so the load's 2xx count cannot see it: each MCP call is made once
 * before it is measured, and a refusal stops the benchmark instead of timing error answers.
 */
export async function expectToolSuccess(base: string, request: autocannon.Request): Promise<void> {
  const init =
    typeof request.setupRequest === "function" ? request.setupRequest(request, {}) : request;
  const response = await fetch(`${base}${init.path ?? request.path}`, {
    method: "POST",
    headers: init.headers as Record<string, string>,
    body: init.body as string,
  });
  const answer = (await response.json().catch(() => null)) as {
    result?: { isError?: boolean; structuredContent?: unknown; content?: unknown };
    error?: unknown;
  } | null;
  if (!response.ok || !answer?.result || answer.result.isError || !answer.result.structuredContent)
    throw new Error(
      `MCP call refused (${response.status}): ${JSON.stringify(answer?.error ?? answer?.result)}`,
    );
}
