import "server-only";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ApiError, mcpTools, ops, toolArguments } from "@switchboard/contract";
import { authenticateAgent, CoreError, parseAuthorization } from "@switchboard/core";
import { getDeps } from "~/server/deps";
import { MAX_BODY_BYTES, readBodyText } from "~/server/read-body";
import { errorResponse, toErrorResponse } from "~/server/responses";
import { agentRoutes } from "./routes";

/**
 * The Agent API as an MCP server (Streamable HTTP, stateless: every request authenticates). Each
 * tool call runs the REST route's own bound handler on an in-process `Request` carrying the
 * caller's credential, so auth, pause, limits, charges, validation and the answer are the REST
 * call's, and the answer becomes the tool result.
 */

/** JSON-RPC messages in one POST: a batch is a handful of calls, not a way around the limits. */
const MAX_BATCH = 16;

type ToolArgs = Record<string, unknown>;

/** A refusal found before the route runs (an unknown tool, misplaced arguments). */
function refusal(code: "validation_error" | "not_found", message: string, path = ""): ApiError {
  return {
    error: {
      code,
      message,
      ...(code === "validation_error" && { issues: [{ path, message }] }),
    },
  };
}

const toolError = (envelope: unknown): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify(envelope) }],
});

/** The REST answer as a tool result: JSON as structured content (and text), bytes as audio. */
async function toolResult(response: Response): Promise<CallToolResult> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) {
    const bytes = Buffer.from(await response.arrayBuffer());
    return {
      content: [
        { type: "audio", data: bytes.toString("base64"), mimeType: type.split(";")[0] ?? type },
      ],
    };
  }
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) return toolError(body);
  return { structuredContent: body, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** Runs one tool: the operation's REST route, on the caller's own credential. */
async function callTool(
  outer: Request,
  name: string,
  args: ToolArgs,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const route = agentRoutes().get(name);
  if (!route) return toolError(refusal("not_found", `No such tool: ${name}`));
  const op = route.operation;
  const places = toolArguments(op);
  const params: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: ToolArgs = {};
  for (const [key, value] of Object.entries(args)) {
    const place = places.get(key);
    if (!place)
      return toolError(refusal("validation_error", `${name} takes no argument ${key}`, key));
    if (value === undefined) continue;
    if (place === "body") body[key] = value;
    else if (place === "path") {
      if (typeof value !== "string" || value === "")
        return toolError(refusal("validation_error", `${key} must be a non-empty string`, key));
      params[key] = value;
    } else
      query.set(
        key,
        typeof value === "object" && value !== null ? JSON.stringify(value) : String(value),
      );
  }
  for (const [key, place] of places)
    if (place === "path" && params[key] === undefined)
      return toolError(refusal("validation_error", `${key} is required`, key));
  const authorization = outer.headers.get("authorization") ?? "";
  if (op.operationId === ops.pollUpdates.operationId && !query.has("afterSeq")) {
    // The agent's cursor is the server's: without afterSeq, only events from now on.
    const cursor = await runRoute(outer, agentRoutes().get(ops.getUpdatesCursor.operationId), {
      authorization,
      signal,
    });
    if (!cursor.ok) return toolResult(cursor);
    query.set("afterSeq", String(((await cursor.json()) as { seq: number }).seq));
  }
  const path = op.path.replace(/\{(\w+)\}/g, (_, key: string) =>
    encodeURIComponent(params[key] ?? ""),
  );
  const withBody = op.body !== undefined && (Object.keys(body).length > 0 || !op.optionalBody);
  const response = await runRoute(outer, route, {
    authorization,
    signal,
    path: `${path}${query.size ? `?${query}` : ""}`,
    params,
    ...(withBody && { body: JSON.stringify(body) }),
  });
  return toolResult(response);
}

async function runRoute(
  outer: Request,
  route: ReturnType<ReturnType<typeof agentRoutes>["get"]>,
  call: {
    authorization: string;
    signal: AbortSignal;
    path?: string;
    params?: Record<string, string>;
    body?: string;
  },
): Promise<Response> {
  if (!route) throw new Error("an Agent API operation without a route");
  const op = route.operation;
  const url = new URL(`/api${call.path ?? op.path}`, outer.url);
  const headers = new Headers({ authorization: call.authorization });
  for (const name of ["x-forwarded-for", "x-real-ip", "user-agent"]) {
    const value = outer.headers.get(name);
    if (value) headers.set(name, value);
  }
  if (call.body !== undefined) headers.set("content-type", "application/json");
  const request = new Request(url, {
    method: op.method,
    headers,
    signal: call.signal,
    ...(call.body !== undefined && { body: call.body }),
  });
  return route(request, { params: Promise.resolve(call.params ?? {}) });
}

function mcpServer(outer: Request): Server {
  const server = new Server(
    { name: "switchboard", title: "Switchboard Agent API", version: "0.2.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "You are a Switchboard agent: people add you as a contact and grant scopes. Consequential actions go through proposeAction; the person approves or rejects the card, and pollUpdates tells you (action.approved / action.rejected).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(outer, request.params.name, request.params.arguments ?? {}, extra.signal),
  );
  return server;
}

/**
 * `POST /api/agent/v1/mcp`: the credential first (401 in the envelope before any MCP message is
 * read), then the JSON-RPC messages, answered as JSON.
 */
export async function handleMcp(request: Request): Promise<Response> {
  const requestId = crypto.randomUUID();
  try {
    const credential = parseAuthorization(request.headers.get("authorization"));
    if (credential.kind !== "agent")
      throw new CoreError(
        "unauthorized",
        "The MCP endpoint takes the Agent API's credential: Authorization: Bearer agent:<token>",
      );
    // Who is calling, without counting a request: each tool call is counted as its REST call.
    await authenticateAgent(getDeps(), credential.secret);
    const text = await readBodyText(request, MAX_BODY_BYTES);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return Response.json(
        { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: not JSON" } },
        { status: 400 },
      );
    }
    if (Array.isArray(parsed) && parsed.length > MAX_BATCH)
      return errorResponse("validation_error", `At most ${MAX_BATCH} messages in one batch`, {
        issues: [{ path: "", message: `at most ${MAX_BATCH} messages` }],
      });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const server = mcpServer(request);
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: parsed });
    // The answer is complete (JSON, not a stream): nothing is left to serve.
    void server.close();
    return response;
  } catch (error) {
    return toErrorResponse(error, requestId);
  }
}
