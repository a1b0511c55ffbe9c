import "server-only";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolResult,
  type CreateTaskResult,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type ServerCapabilities,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { type AgentAction, ops } from "@switchboard/contract";
import {
  CoreError,
  findProposal,
  listProposalPage,
  type Proposal,
  type ProposalCursor,
  waitForDecision,
} from "@switchboard/core";
import { getDeps } from "~/server/deps";

/**
 * Proposals as MCP tasks (protocol 2025-11-25, decision 0069). `proposeAction` called with a
 * task answers its task at once; the task is the proposal itself (its id is the action's id,
 * its status read from the action row, so any web process answers for it and nothing else is
 * stored): `working` while the card waits, `completed` once the person approved or rejected it,
 * or it expired, and then `tasks/result` is the tool result with the decision. Every read is the
 * calling agent's own: another agent's task id is not found.
 */

/** What the server declares: task-augmented `tools/call` and `tasks/list` (no cancel). */
export const taskCapabilities: NonNullable<ServerCapabilities["tasks"]> = {
  list: {},
  requests: { tools: { call: {} } },
};

/** The tools a client may call as a task: the one whose answer is a person's decision. */
export const taskTools: ReadonlySet<string> = new Set([ops.proposeAction.operationId]);

/** How often a client should ask `tasks/get`: a person's decision takes seconds at least. */
export const TASK_POLL_INTERVAL_MS = 5000;

/** Tasks per `tasks/list` page. */
const TASK_PAGE = 50;

/** Whom a task call is for; throws the admission's refusal (paused, rate-limited). */
type TaskCaller = () => Promise<{ agentId: string }>;

/** A proposal's task: its lifetime (`ttl`) is the card's, from proposing to `expiresAt`. */
export function taskOf(action: AgentAction): Task {
  const createdAt = Date.parse(action.createdAt);
  const working = action.state === "pending";
  return {
    taskId: action.id,
    status: working ? "working" : "completed",
    statusMessage: working
      ? "Waiting for the person to decide on the card"
      : `The proposal was ${action.state}`,
    createdAt: action.createdAt,
    lastUpdatedAt: action.resolvedAt ?? action.createdAt,
    ttl: Date.parse(action.expiresAt) - createdAt,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

/**
 * What the person decided, beside the REST answer's fields: `approved` with the payload to act
 * on (theirs when they edited it) and `edited`; `rejected` with their reason and choice (null
 * when they gave none); `expired`.
 */
function decisionOf(action: AgentAction) {
  if (action.state === "approved")
    return {
      state: "approved" as const,
      edited: action.editedPayload !== null,
      payload: action.editedPayload ?? action.payload,
    };
  if (action.state === "rejected")
    return {
      state: "rejected" as const,
      rejection: action.rejection ?? { reason: null, choice: null },
    };
  return { state: action.state };
}

/** The task's tool result: `proposeAction`'s own answer, now decided, and the decision. */
function resultOf(proposal: Proposal): CallToolResult {
  const structured = { ...proposal, decision: decisionOf(proposal.action) };
  return {
    structuredContent: structured,
    content: [{ type: "text", text: JSON.stringify(structured) }],
    _meta: { [RELATED_TASK_META_KEY]: { taskId: proposal.action.id } },
  };
}

/** A refusal of the REST call or of the admission as a JSON-RPC error carrying the envelope. */
function refusedCall(envelope: { error: { code: string; message: string } }): McpError {
  const { code, message } = envelope.error;
  const params = code === "validation_error" || code.startsWith("invalid_");
  return new McpError(
    params ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest,
    `${code}: ${message}`,
    envelope,
  );
}

async function callerOf(caller: TaskCaller): Promise<string> {
  try {
    return (await caller()).agentId;
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    throw refusedCall({ error: { code: error.code, message: error.message, ...error.details } });
  }
}

const notFound = (taskId: string) =>
  new McpError(ErrorCode.InvalidParams, `Failed to retrieve task: Task not found: ${taskId}`);

/**
 * A task-augmented `tools/call`: the tool runs as it would without a task (the REST call,
 * admission, limits and all), and its proposal becomes the task. A tool that is not a task
 * tool answers -32601 as the protocol asks; a refused call is a JSON-RPC error whose `data` is
 * the error envelope (there is no proposal, so no task to fail).
 */
export async function createTask(
  name: string,
  run: () => Promise<CallToolResult>,
): Promise<CreateTaskResult> {
  if (!taskTools.has(name))
    throw new McpError(
      ErrorCode.MethodNotFound,
      `${name} does not run as a task: call it without one`,
    );
  const result = await run();
  const text = result.content[0]?.type === "text" ? result.content[0].text : "{}";
  if (result.isError) throw refusedCall(JSON.parse(text));
  const { action } = result.structuredContent as { action: AgentAction };
  return {
    task: taskOf(action),
    _meta: {
      "io.modelcontextprotocol/model-immediate-response":
        "The card is on the person's screen; their decision is this task's result.",
    },
  };
}

function encodeCursor(cursor: ProposalCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString(
    "base64url",
  );
}

function decodeCursor(cursor: string): ProposalCursor {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown[];
    const createdAt = new Date(String(at));
    if (typeof id === "string" && typeof at === "string" && !Number.isNaN(createdAt.getTime()))
      return { createdAt, id };
  } catch {}
  throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
}

/**
 * `tasks/get`, `tasks/result` and `tasks/list` on one POST's server. `tasks/result` of a task
 * still working parks until the decision (woken by the agent's event-log notification), at most
 * LONGPOLL_MAX_WAIT_S as a long-poll does; still working then, it answers -32001 (timeout) with
 * the task in `data`, and the client asks again or polls `tasks/get`.
 */
export function registerTaskHandlers(server: Server, caller: TaskCaller, signal: AbortSignal) {
  server.setRequestHandler(GetTaskRequestSchema, async (request) => {
    const agentId = await callerOf(caller);
    const proposal = await findProposal(getDeps(), agentId, request.params.taskId);
    if (!proposal) throw notFound(request.params.taskId);
    return taskOf(proposal.action);
  });
  server.setRequestHandler(GetTaskPayloadRequestSchema, async (request) => {
    const agentId = await callerOf(caller);
    const deps = getDeps();
    const { taskId } = request.params;
    let proposal: Proposal | null;
    try {
      proposal = await waitForDecision(
        deps,
        agentId,
        taskId,
        deps.config.LONGPOLL_MAX_WAIT_S * 1000,
        signal,
      );
    } catch (error) {
      if (!(error instanceof CoreError)) throw error;
      throw refusedCall({ error: { code: error.code, message: error.message, ...error.details } });
    }
    if (!proposal) throw notFound(taskId);
    if (proposal.action.state === "pending")
      throw new McpError(
        ErrorCode.RequestTimeout,
        "The person has not decided yet: ask tasks/result again, or poll tasks/get",
        taskOf(proposal.action),
      );
    return resultOf(proposal);
  });
  server.setRequestHandler(ListTasksRequestSchema, async (request) => {
    const agentId = await callerOf(caller);
    const cursor = request.params?.cursor;
    const page = await listProposalPage(
      getDeps(),
      agentId,
      cursor === undefined ? undefined : decodeCursor(cursor),
      TASK_PAGE,
    );
    return {
      tasks: page.actions.map(taskOf),
      ...(page.next && { nextCursor: encodeCursor(page.next) }),
    };
  });
}
