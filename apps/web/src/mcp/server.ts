import "server-only";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  type ApiError,
  type ArgumentPlace,
  IDEMPOTENCY_KEY_HEADER,
  mcpInstructions,
  mcpTools,
  ops,
  toolArguments,
} from "@switchboard/contract";
import {
  type AdmissionInSend,
  admissionInSend,
  authorizeAgentRequest,
  CoreError,
  knownAgentToken,
  parseAuthorization,
  parseIdempotencyKey,
} from "@switchboard/core";
import type { Admit, CallAnswer, Within } from "~/server/api-route";
import { clientFamily, clientNetwork } from "~/server/client-network";
import { getDeps } from "~/server/deps";
import {
  callerKey,
  MAX_BODY_BYTES,
  REFUSED_BODY_BYTES,
  readableBeforeAdmission,
  readBodyText,
} from "~/server/read-body";
import { errorResponse, toErrorResponse } from "~/server/responses";
import { mcpAuthorizer } from "./credential";
import { type AgentAdmission, type AgentRoute, agentRoutes } from "./routes";
import { createTask, registerTaskHandlers, taskCapabilities, taskTools } from "./tasks";

/**
 * The Agent API as an MCP server (Streamable HTTP, stateless: every request authenticates). Each
 * tool call runs the REST route's own bound handler on an in-process `Request`, let in by the
 * POST's own authentication (one counted request, as a REST call is), so pause, limits, charges,
 * validation and the answer are the REST call's, and the answer becomes the tool result.
 */

/** JSON-RPC messages in one POST: a batch is a handful of calls, not a way around the limits. */
const MAX_BATCH = 16;

type ToolArgs = Record<string, unknown>;

/** Refusals a tool call answers itself; the POST goes on (the agent can still list tools). */
const PER_CALL_REFUSALS = new Set(["agent_paused", "rate_limited"]);

/** A tool, built once per process: its REST route and where each of its arguments goes. */
interface Tool {
  route: AgentRoute;
  places: Map<string, ArgumentPlace>;
}

let toolsByName: Map<string, Tool> | undefined;
function toolNamed(name: string): Tool | undefined {
  toolsByName ??= new Map(
    [...agentRoutes()].map(([id, route]) => [
      id,
      { route, places: toolArguments(route.operation) },
    ]),
  );
  return toolsByName.get(name);
}

/**
 * The server's per-process parts. The transport is stateless, so each POST needs its own
 * `Server` (one is bound to one transport); what does not depend on the POST is made once.
 */
const serverInfo = { name: "switchboard", title: "Switchboard Agent API", version: "0.2.0" };
let serverOptions: ConstructorParameters<typeof Server>[1] | undefined;
let toolList: { tools: ReturnType<typeof mcpTools> } | undefined;

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

/**
 * The route's JSON text a tool result was made from, as the route serialised it: a lone tool
 * call's answer embeds it rather than serialising the result again.
 */
const resultJson = new WeakMap<CallToolResult, string>();

/** The REST answer as a tool result: JSON as structured content (and text), bytes as audio. */
function toolResult(answer: CallAnswer): CallToolResult | Promise<CallToolResult> {
  if (answer instanceof Response) return responseResult(answer);
  // The pipeline's own JSON answer, taken as it was serialised (no body read, no parse).
  const { text, value } = answer.json;
  const result: CallToolResult = {
    structuredContent: (value ?? JSON.parse(text)) as Record<string, unknown>,
    content: [{ type: "text", text }],
  };
  resultJson.set(result, text);
  return result;
}

async function responseResult(response: Response): Promise<CallToolResult> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) {
    const bytes = Buffer.from(await response.arrayBuffer());
    return {
      content: [
        { type: "audio", data: bytes.toString("base64"), mimeType: type.split(";")[0] ?? type },
      ],
    };
  }
  const text = await response.text();
  const body = JSON.parse(text) as Record<string, unknown>;
  if (!response.ok) return toolError(body);
  return { structuredContent: body, content: [{ type: "text", text }] };
}

/** One POST: the caller's request, and how each of its tool calls is let in. */
interface Post {
  request: Request;
  /** Whose share of the body budget the POST's body counts against (`callerKey`). */
  caller: string;
  /** Why this agent's tool calls are refused (paused, rate-limited), if they are. */
  refusal?: CoreError;
  /**
   * The next tool call's admission. The first rides on the POST's own authentication (one
   * counted request); further calls of a batch authenticate and count one request each.
   */
  admit(): Admit<AgentAdmission>;
  /** For a lone tool call of a caller let in before: its send may let it in (decision 0083). */
  within?: Within<AgentAdmission>;
}

/** Runs one tool: the operation's REST route, let in as the POST was. */
async function callTool(post: Post, name: string, args: ToolArgs): Promise<CallToolResult> {
  const tool = toolNamed(name);
  if (!tool) return toolError(refusal("not_found", `No such tool: ${name}`));
  const op = tool.route.operation;
  const params: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: ToolArgs = {};
  let idempotencyKey: string | undefined;
  for (const [key, value] of Object.entries(args)) {
    const place = tool.places.get(key);
    if (!place)
      return toolError(refusal("validation_error", `${name} takes no argument ${key}`, key));
    if (value === undefined) continue;
    if (place === "body") body[key] = value;
    else if (place === "header") {
      // The REST call's Idempotency-Key header, checked as the route checks it (and before
      // Headers would throw on a character a header cannot carry).
      try {
        parseIdempotencyKey(String(value));
      } catch (error) {
        if (!(error instanceof CoreError)) throw error;
        return toolError({ error: { code: error.code, message: error.message, ...error.details } });
      }
      idempotencyKey = String(value);
    } else if (place === "path") {
      if (typeof value !== "string" || value === "")
        return toolError(refusal("validation_error", `${key} must be a non-empty string`, key));
      params[key] = value;
    } else
      query.set(
        key,
        typeof value === "object" && value !== null ? JSON.stringify(value) : String(value),
      );
  }
  for (const [key, place] of tool.places)
    if (place === "path" && params[key] === undefined)
      return toolError(refusal("validation_error", `${key} is required`, key));
  // One admission for the whole call: the cursor read below is part of this call, not another.
  const admit = post.admit();
  if (op.operationId === ops.pollUpdates.operationId && !query.has("afterSeq")) {
    // The agent's cursor is the server's: without afterSeq, only events from now on.
    const cursorRoute = toolNamed(ops.getUpdatesCursor.operationId)?.route;
    if (!cursorRoute) throw new Error("getUpdatesCursor has no route");
    const cursor = await runRoute(post.request, cursorRoute, admit, {});
    if (cursor instanceof Response) return toolResult(cursor);
    query.set("afterSeq", String((JSON.parse(cursor.json.text) as { seq: number }).seq));
  }
  const path = op.path.replace(/\{(\w+)\}/g, (_, key: string) =>
    encodeURIComponent(params[key] ?? ""),
  );
  const withBody = op.body !== undefined && (Object.keys(body).length > 0 || !op.optionalBody);
  const response = await runRoute(
    post.request,
    tool.route,
    admit,
    {
      path: `${path}${query.size ? `?${query}` : ""}`,
      params,
      ...(withBody && { body: JSON.stringify(body) }),
      idempotencyKey,
    },
    post.within,
  );
  return toolResult(response);
}

/** The route's own pipeline on an in-process call; no HTTP to ourselves, no `Request` built. */
function runRoute(
  outer: Request,
  route: AgentRoute,
  admit: Admit<AgentAdmission>,
  call: { path?: string; params?: Record<string, string>; body?: string; idempotencyKey?: string },
  within?: Within<AgentAdmission>,
): Promise<CallAnswer> {
  const op = route.operation;
  const headers = new Headers();
  // What the request log and the client network read; the credential was checked already.
  for (const name of ["x-forwarded-for", "x-real-ip", "user-agent"]) {
    const value = outer.headers.get(name);
    if (value) headers.set(name, value);
  }
  if (call.body !== undefined) headers.set("content-type", "application/json");
  if (call.idempotencyKey !== undefined) headers.set(IDEMPOTENCY_KEY_HEADER, call.idempotencyKey);
  return route.admitted(
    {
      url: new URL(`/api${call.path ?? op.path}`, outer.url),
      method: op.method,
      headers,
      params: call.params ?? {},
      ...(call.body !== undefined && { body: call.body }),
      // The caller's own for the one call that waits: a long-poll ends when the MCP client goes
      // away, as a REST one does.
      ...(op.operationId === ops.pollUpdates.operationId && { signal: outer.signal }),
    },
    admit,
    within,
  );
}

function mcpServer(post: Post): Server {
  serverOptions ??= {
    capabilities: { tools: {}, tasks: taskCapabilities },
    instructions: mcpInstructions,
    // The server never validates against a client's schema (no elicitation), but would build an
    // Ajv instance for every Server: one for the process.
    jsonSchemaValidator: new AjvJsonSchemaValidator(),
  };
  toolList ??= {
    tools: mcpTools().map((tool) =>
      taskTools.has(tool.name) ? { ...tool, execution: { taskSupport: "optional" } } : tool,
    ),
  };
  const listed = toolList;
  const server = new Server(serverInfo, serverOptions);
  server.setRequestHandler(ListToolsRequestSchema, () => listed);
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    const run = () => callTool(post, params.name, params.arguments ?? {});
    return params.task ? createTask(params.name, run) : run();
  });
  registerTaskHandlers(server, () => post.admit()(), post.request.signal);
  return server;
}

/**
 * Lets the POST in the way every Agent API call is let in, counting it as one request: a bad,
 * revoked or expired token, or an unavailable owner, refuses the POST (401 before any MCP message
 * is read). A paused or rate-limited agent still gets its answers to initialize and tools/list;
 * each of its tool calls answers that refusal, as each REST call would (and a body larger than
 * those small messages is answered with the refusal, unread).
 */
async function admitPost(request: Request): Promise<Post> {
  const authorizer = mcpAuthorizer(request.headers.get("authorization"));
  const deps = getDeps();
  const client = { family: clientFamily(request.headers, deps.config.TRUSTED_PROXIES) };
  const authorize = () => authorizer(deps, client);
  let first: Admit<AgentAdmission>;
  let caller: string;
  let refusal: CoreError | undefined;
  try {
    const admission = await authorize();
    first = async () => admission;
    caller = callerKey({ agentId: admission.agentId });
  } catch (error) {
    if (!(error instanceof CoreError && PER_CALL_REFUSALS.has(error.code))) throw error;
    refusal = error;
    first = async () => {
      throw error;
    };
    caller = callerKey({ network: clientNetwork(request.headers, deps.config.TRUSTED_PROXIES) });
  }
  let firstTaken = false;
  return {
    request,
    caller,
    ...(refusal && { refusal }),
    admit() {
      if (!firstTaken) {
        firstTaken = true;
        return first;
      }
      let further: Promise<AgentAdmission> | undefined;
      return () => {
        further ??= authorize();
        return further;
      };
    },
  };
}

/**
 * The POST's caller when it is an agent token this process let in before (`admissionInSend`)
 * and its body declares a length that may be read before it is let in, with its share of the
 * body budget; undefined for any other.
 */
function knownCaller(request: Request) {
  const credential = parseAuthorization(request.headers.get("authorization"));
  if (credential.kind !== "agent" || !readableBeforeAdmission(request.headers)) return undefined;
  const known = knownAgentToken(credential.secret);
  if (!known) return undefined;
  const deps = getDeps();
  const client = { family: clientFamily(request.headers, deps.config.TRUSTED_PROXIES) };
  // Made only for a route whose send may let the call in (the others never read it).
  let within: AdmissionInSend | undefined;
  return {
    within: () => {
      within ??= admissionInSend(deps, known, client);
      return within;
    },
    /** Whether the call's send let it in. */
    letInBySend: () => within?.rate !== undefined,
    authorize: () => authorizeAgentRequest(deps, known, client),
    caller: callerKey({ agentId: known.agentId }),
  };
}

/**
 * A lone tool call's POST, let in when its call runs: by its send's statement (`within`), or
 * the plain way when its route asks (`admit`). `settle`, once the call was answered, lets in a
 * POST whose call was answered without either (an unknown tool, a bad argument) and throws a
 * refusal of the POST itself (a token revoked since, say: 401, as `admitPost` would).
 */
function lazyPost(
  request: Request,
  known: NonNullable<ReturnType<typeof knownCaller>>,
): Post & { settle(): Promise<void> } {
  let admission: Promise<AgentAdmission> | undefined;
  let refused: unknown;
  const admitOnce = () => {
    admission ??= known.authorize().catch((error: unknown) => {
      if (!(error instanceof CoreError && PER_CALL_REFUSALS.has(error.code))) refused = error;
      throw error;
    });
    return admission;
  };
  return {
    request,
    caller: known.caller,
    within: known.within,
    admit: () => admitOnce,
    async settle() {
      if (!known.letInBySend() && !admission) await admitOnce().catch(() => {});
      if (refused) throw refused;
    },
  };
}

/**
 * `POST /api/agent/v1/mcp`: the credential first (401 in the envelope before any MCP message is
 * read), then the JSON-RPC messages, answered as JSON.
 */
export async function handleMcp(request: Request): Promise<Response> {
  try {
    const known = knownCaller(request);
    // A caller let in before: the body is read first, and a lone tool call is let in when it
    // runs, by its send's own statement when it can (decision 0083).
    const early = known && readBodyText(request, { caller: known.caller });
    if (known && early) {
      const call = await early
        .then((text) => plainToolCall(request, JSON.parse(text)))
        .catch(() => undefined);
      if (call) {
        const post = lazyPost(request, known);
        const answer = await answerToolCall(post, call);
        await post.settle();
        return answer;
      }
    }
    const post = await admitPost(request);
    const text = await (
      early ??
      readBodyText(request, {
        caller: post.caller,
        maxBytes: post.refusal ? REFUSED_BODY_BYTES : MAX_BODY_BYTES,
      })
    ).catch((error) => {
      throw post.refusal && error instanceof CoreError && error.code === "payload_too_large"
        ? post.refusal
        : error;
    });
    if (post.refusal && Buffer.byteLength(text) > REFUSED_BODY_BYTES) throw post.refusal;
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
    const call = plainToolCall(request, parsed);
    if (call) return await answerToolCall(post, call);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await mcpServer(post).connect(transport);
    // The answer is complete JSON, not a stream. Nothing is closed after it: the server and its
    // transport hold no timer or stream, and closing would abort the finished handlers' signals
    // (building an error and a DOMException per POST) only to be collected anyway.
    return await transport.handleRequest(request, { parsedBody: parsed });
  } catch (error) {
    return toErrorResponse(error, crypto.randomUUID());
  }
}

/** A single `tools/call` that needs nothing of the SDK's but the call itself. */
interface PlainToolCall {
  id: string | number;
  name: string;
  args: ToolArgs;
}

/**
 * The POST is one `tools/call` request, without a task, that the SDK's transport and server
 * would let through unchanged (its Accept, Content-Type and protocol version headers pass, its
 * id, name and arguments have their schema's types): it is answered without building a `Server`
 * and a transport, parsing the message against the SDK's schemas and checking the result against
 * them (half of a tool call's own CPU, issue 41). Anything else (a batch, initialize,
 * tools/list, a task, a malformed message, headers the transport refuses) goes to the SDK as
 * before, which answers it, or refuses it, in its own words.
 */
function plainToolCall(request: Request, message: unknown): PlainToolCall | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0" || method !== "tools/call") return;
  if (!(typeof id === "string" || Number.isSafeInteger(id))) return;
  if (typeof params !== "object" || params === null || Array.isArray(params)) return;
  const { name, arguments: args, task } = params as Record<string, unknown>;
  if (typeof name !== "string" || task !== undefined) return;
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
    return;
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return;
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "")) return;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return;
  return { id: id as string | number, name, args: (args ?? {}) as ToolArgs };
}

/** The JSON-RPC answer to a plain tool call, as the SDK's JSON response mode words it. */
async function answerToolCall(post: Post, call: PlainToolCall): Promise<Response> {
  let answer: Record<string, unknown>;
  try {
    const result = await callTool(post, call.name, call.args);
    const json = resultJson.get(result);
    // The SDK's words, with the route's JSON as it was serialised (the same text twice: as
    // structured content, and as the text content's string).
    if (json !== undefined)
      return jsonAnswer(
        `{"result":{"structuredContent":${json},"content":[{"type":"text","text":${JSON.stringify(json)}}]},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`,
      );
    answer = { result, jsonrpc: "2.0", id: call.id };
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
    answer = {
      jsonrpc: "2.0",
      id: call.id,
      error: {
        code: Number.isSafeInteger(code) ? code : -32603,
        message: message ?? "Internal error",
        ...(data !== undefined && { data }),
      },
    };
  }
  return jsonAnswer(JSON.stringify(answer));
}

const jsonAnswer = (text: string) =>
  new Response(text, { status: 200, headers: { "Content-Type": "application/json" } });
