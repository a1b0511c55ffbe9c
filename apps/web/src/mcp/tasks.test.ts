import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import {
  addContact,
  createAgent,
  createUser,
  decideAction,
  expireAction,
  listProposalPage,
  mintAgentToken,
  pauseAgent,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { provideDeps } from "~/server/deps";
import { handleMcp } from "./server";
import { TASK_POLL_INTERVAL_MS } from "./tasks";

/**
 * Proposals as MCP tasks, through the official SDK client's task calls against the endpoint's
 * handler; the person decides through core, as the CLI and the console do.
 */
let t: Awaited<ReturnType<typeof createTestDeps>>;
let token: string;
let otherToken: string;
let agentId: string;
let personNum: string;
let personId: string;
beforeAll(async () => {
  // A short park for tasks/result, so the "still working" answer is seen in a test.
  t = await createTestDeps({ env: { LONGPOLL_MAX_WAIT_S: "2" } });
  provideDeps(t.deps);
  const owner = await createUser(t.deps, {});
  const scopes = ["messages:read", "messages:write"] as const;
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Tasks",
    requestedScopes: [...scopes],
  });
  agentId = agent.id;
  token = (await mintAgentToken(t.deps, agent.id)).token;
  const other = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Other",
    requestedScopes: [...scopes],
  });
  otherToken = (await mintAgentToken(t.deps, other.id)).token;
  const person = await createUser(t.deps, { displayName: "Ada" });
  personId = person.id;
  personNum = person.num;
  await addContact(t.deps, person.id, agent.id, [...scopes]);
  await addContact(t.deps, person.id, other.id, [...scopes]);
});
afterAll(() => t.close());

const inProcessFetch = (async (input: string | URL | Request, init?: RequestInit) =>
  handleMcp(new Request(input, init))) as typeof fetch;

async function connect(secret = token): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("http://localhost/api/agent/v1/mcp"), {
      fetch: inProcessFetch,
      requestInit: { headers: { Authorization: `Bearer agent:${secret}` } },
    }),
  );
  // The tool list tells the client which tools run as tasks.
  await client.listTools();
  return client;
}

const proposal = (title: string, extra: Record<string, unknown> = {}) => ({
  name: "proposeAction",
  arguments: { to: personNum, kind: "book_table", title, payload: { seats: 2 }, ...extra },
});

/** Proposes as a task and answers the task the call created. */
async function proposeTask(client: Client, title: string, extra: Record<string, unknown> = {}) {
  const answer = await client.request(
    { method: "tools/call", params: { ...proposal(title, extra), task: {} } },
    CreateTaskResultSchema,
  );
  return answer.task;
}

type Decided = {
  action: { id: string; state: string };
  message: { agentActionId: string };
  conversationId: string;
  decision: Record<string, unknown>;
};
const structured = (result: object) =>
  (result as { structuredContent?: unknown }).structuredContent as Decided;

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

it("declares tasks for tools/call and tasks/list, and proposeAction as a tool that may run as one", async () => {
  const client = await connect();
  expect(client.getServerCapabilities()?.tasks).toEqual({
    list: {},
    requests: { tools: { call: {} } },
  });
  const { tools } = await client.listTools();
  expect(tools.find((tool) => tool.name === "proposeAction")?.execution).toEqual({
    taskSupport: "optional",
  });
  expect(tools.filter((tool) => tool.execution).map((tool) => tool.name)).toEqual([
    "proposeAction",
  ]);
  expect(client.getInstructions()).toContain("proposeAction as a task");
  await client.close();
});

it("streams a task call: working at once, then completed with the approval and the person's edit", async () => {
  const client = await connect();
  const seen: string[] = [];
  let result: Decided | undefined;
  for await (const message of client.experimental.tasks.callToolStream(proposal("Table for 2"))) {
    if (message.type === "taskCreated") {
      seen.push(`created:${message.task.status}`);
      expect(message.task.pollInterval).toBe(TASK_POLL_INTERVAL_MS);
      // The card's lifetime: 24 h by default.
      expect(message.task.ttl).toBe(24 * 3600_000);
      await decideAction(t.deps, {
        userRef: personId,
        actionId: message.task.taskId,
        approve: true,
        editedPayload: { seats: 3 },
      });
    } else if (message.type === "taskStatus") seen.push(`status:${message.task.status}`);
    else if (message.type === "result") result = structured(message.result);
    else throw message.error;
  }
  expect(seen).toEqual(["created:working", "status:completed"]);
  expect(result?.action.state).toBe("approved");
  expect(result?.decision).toEqual({ state: "approved", edited: true, payload: { seats: 3 } });
  expect(result?.message.agentActionId).toBe(result?.action.id);
  await client.close();
});

it("reports working on tasks/get until the person approves, then completed with the unedited payload", async () => {
  const client = await connect();
  const task = await proposeTask(client, "Table for 4");
  expect(task.status).toBe("working");
  const working = await client.experimental.tasks.getTask(task.taskId);
  expect(working).toMatchObject({ taskId: task.taskId, status: "working" });
  await decideAction(t.deps, { userRef: personId, actionId: task.taskId, approve: true });
  const done = await client.experimental.tasks.getTask(task.taskId);
  expect(done.status).toBe("completed");
  expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
  const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  expect(structured(result).decision).toEqual({
    state: "approved",
    edited: false,
    payload: { seats: 2 },
  });
  expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: task.taskId });
  await client.close();
});

it("gives a rejection's reason and choice as the task's result", async () => {
  const client = await connect();
  const task = await proposeTask(client, "Table at 9");
  await decideAction(t.deps, {
    userRef: personId,
    actionId: task.taskId,
    approve: false,
    rejection: { reason: "Too late for me", choice: "wrong_details" },
  });
  const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  expect(structured(result).action.state).toBe("rejected");
  expect(structured(result).decision).toEqual({
    state: "rejected",
    rejection: { reason: "Too late for me", choice: "wrong_details" },
  });
  await client.close();
});

it("completes an expired card's task as expired, its ttl the card's lifetime", async () => {
  const client = await connect();
  const task = await proposeTask(client, "Table soon", {
    expiresAt: new Date(t.clock.now().getTime() + 120_000).toISOString(),
  });
  expect(task.ttl).toBe(120_000);
  t.clock.advance(121_000);
  expect(await expireAction(t.deps, task.taskId)).toBe("expired");
  expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
  const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  expect(structured(result).decision).toEqual({ state: "expired" });
  await client.close();
});

it("parks tasks/result until the decision, woken by it; still working after the park, it says so", async () => {
  const client = await connect();
  const task = await proposeTask(client, "Table by the window");
  const waited = await rpcError(
    client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
  );
  expect(waited.code).toBe(ErrorCode.RequestTimeout);
  expect(waited.data).toMatchObject({ taskId: task.taskId, status: "working" });
  const started = Date.now();
  const parked = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await decideAction(t.deps, { userRef: personId, actionId: task.taskId, approve: true });
  expect(structured(await parked).decision).toMatchObject({ state: "approved" });
  // Woken by the decision's notification, not by the end of the 2 s park.
  expect(Date.now() - started).toBeLessThan(1800);
  await client.close();
});

it("lists the agent's own tasks, newest first, and never shows or answers another agent's", async () => {
  const client = await connect();
  t.clock.advance(1000);
  const task = await proposeTask(client, "Table for 6");
  const { tasks } = await client.experimental.tasks.listTasks();
  expect(tasks[0]).toMatchObject({ taskId: task.taskId, status: "working" });
  expect(tasks.length).toBeGreaterThan(4);
  expect(tasks.slice(1).every((one) => one.status === "completed")).toBe(true);
  // Pages, newest first (by creation, then id), each task once.
  const ids: string[] = [];
  let after: Awaited<ReturnType<typeof listProposalPage>>["next"];
  do {
    const page = await listProposalPage(t.deps, agentId, after, 2);
    ids.push(...page.actions.map((action) => action.id));
    after = page.next;
  } while (after);
  expect(ids).toEqual(tasks.map((one) => one.taskId));

  const other = await connect(otherToken);
  expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
  for (const call of [
    () => other.experimental.tasks.getTask(task.taskId),
    () => other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
  ]) {
    const error = await rpcError(call());
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/not found/i);
  }
  const unknown = await rpcError(client.experimental.tasks.getTask("act_nope"));
  expect(unknown.code).toBe(ErrorCode.InvalidParams);
  const cursor = await rpcError(client.experimental.tasks.listTasks("not-a-cursor"));
  expect(cursor.code).toBe(ErrorCode.InvalidParams);
  await decideAction(t.deps, { userRef: personId, actionId: task.taskId, approve: false });
  await client.close();
  await other.close();
});

it("keeps today's answer without a task; a refused task call and a task call of another tool are JSON-RPC errors", async () => {
  const client = await connect();
  const plain = await client.callTool(proposal("Table, no task"));
  expect(plain.isError).toBeFalsy();
  expect(structured(plain).action.state).toBe("pending");
  expect(structured(plain).decision).toBeUndefined();
  await decideAction(t.deps, {
    userRef: personId,
    actionId: structured(plain).action.id,
    approve: false,
  });

  const stranger = await createUser(t.deps, {});
  const refused = await rpcError(proposeTask(client, "Table", { to: stranger.num }));
  expect(refused.code).toBe(ErrorCode.InvalidRequest);
  expect((refused.data as { error: { code: string } }).error.code).toBe("not_a_contact");
  const invalid = await rpcError(proposeTask(client, ""));
  expect(invalid.code).toBe(ErrorCode.InvalidParams);
  expect((invalid.data as { error: { code: string } }).error.code).toBe("validation_error");

  const notTask = await rpcError(
    client.request(
      { method: "tools/call", params: { name: "getMe", arguments: {}, task: {} } },
      CreateTaskResultSchema,
    ),
  );
  expect(notTask.code).toBe(ErrorCode.MethodNotFound);
  // A card cannot be withdrawn: no tasks/cancel.
  const cancel = await rpcError(
    client.request(
      { method: "tasks/cancel", params: { taskId: structured(plain).action.id } },
      CancelTaskResultSchema,
    ),
  );
  expect(cancel.code).toBe(ErrorCode.MethodNotFound);
  await client.close();
});

it("answers a paused agent's task calls with agent_paused", async () => {
  const owner = await createUser(t.deps, {});
  const paused = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Paused",
    requestedScopes: ["messages:write"],
  });
  await addContact(t.deps, personId, paused.id, ["messages:write"]);
  const client = await connect((await mintAgentToken(t.deps, paused.id)).token);
  const task = await proposeTask(client, "Table before the pause");
  await pauseAgent(t.deps, paused.id);
  for (const call of [
    () => client.experimental.tasks.getTask(task.taskId),
    () => client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema),
    () => client.experimental.tasks.listTasks(),
  ]) {
    const error = await rpcError(call());
    expect((error.data as { error: { code: string } }).error.code).toBe("agent_paused");
  }
  await client.close();
});
