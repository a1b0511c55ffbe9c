import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { operations } from "@switchboard/contract";
import { createUser, decideAction, pauseAgent, revokeAgentToken } from "@switchboard/core";
import { dataUrl, deps, newAgent, newContact, wavBytes } from "../support/fixtures";
import { awayFromMinuteBoundary } from "../support/http";
import { repoRoot } from "../support/processes";
import { expect, test } from "../support/test";

/**
 * The Agent API as MCP tools, driven by the official SDK client against the running service:
 * over Streamable HTTP, and through the CLI's stdio bridge.
 */
const base = () => `http://localhost:${process.env.E2E_PORT}`;
const agentOperationIds = operations
  .filter((op) => op.surface === "agent")
  .map((op) => op.operationId);

type ToolAnswer = Awaited<ReturnType<Client["callTool"]>>;
const envelopeOf = (answer: ToolAnswer) => {
  expect(answer.isError, JSON.stringify(answer)).toBe(true);
  return JSON.parse((answer.content as { text: string }[])[0]?.text ?? "").error as {
    code: string;
    issues?: unknown[];
    retryAfterSeconds?: number;
  };
};
const data = <T>(answer: ToolAnswer) => {
  expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
  return answer.structuredContent as T;
};

async function httpClient(token: string | null): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base()}/api/agent/v1/mcp`), {
      ...(token !== null && {
        requestInit: { headers: { Authorization: `Bearer agent:${token}` } },
      }),
    }),
  );
  return client;
}

test("lists one tool per Agent API operation, named by its operationId", async () => {
  const { token } = await newAgent();
  const client = await httpClient(token);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(agentOperationIds);
  for (const tool of tools) {
    expect(tool.inputSchema.type, tool.name).toBe("object");
    expect(tool.description, tool.name).toContain("codes:");
  }
  expect(tools.find((tool) => tool.name === "pollUpdates")?.inputSchema.properties).toMatchObject({
    afterSeq: { type: "integer" },
    wait: { type: "number" },
  });
  // The initialize answer's instructions: the loop, in the tools' names.
  expect(client.getInstructions()).toContain("only after action.approved");
  await client.close();
});

test("refuses to connect without a valid agent token, before any MCP message", async () => {
  await expect(httpClient(null)).rejects.toThrow();
  await expect(httpClient("sbat_not-a-token")).rejects.toThrow();
  // Plain fetch: the endpoint is not a registry operation the request fixture checks answers of.
  const post = (headers: Record<string, string>) =>
    fetch(`${base()}/api/agent/v1/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
  const anonymous = await post({});
  expect(anonymous.status).toBe(401);
  expect((await anonymous.json()).error.code).toBe("unauthorized");
  const { token } = await newAgent();
  await revokeAgentToken(deps(), { token });
  const revoked = await post({ Authorization: `Bearer agent:${token}` });
  expect(revoked.status).toBe(401);
  expect((await revoked.json()).error.code).toBe("token_revoked");
  const get = await fetch(`${base()}/api/agent/v1/mcp`);
  expect(get.status).toBe(405);
  expect(get.headers.get("allow")).toBe("POST");
});

test("getMe, sendMessage, proposeAction and pollUpdates round trips: the card approved in between", async () => {
  const { token, agent, person, conversationId } = await newContact();
  const client = await httpClient(token);
  expect(data<{ id: string }>(await client.callTool({ name: "getMe", arguments: {} })).id).toBe(
    agent.id,
  );
  const sent = data<{ message: { content: string }; conversationId: string }>(
    await client.callTool({
      name: "sendMessage",
      arguments: { to: person.num, type: "text", content: "Hello over MCP" },
    }),
  );
  expect(sent).toMatchObject({ conversationId, message: { content: "Hello over MCP" } });
  const history = data<{ messages: { content: string }[] }>(
    await client.callTool({ name: "listMessages", arguments: { conversationId, limit: 5 } }),
  );
  expect(history.messages.map((message) => message.content)).toContain("Hello over MCP");

  const proposed = data<{ action: { id: string; state: string } }>(
    await client.callTool({
      name: "proposeAction",
      arguments: { to: person.num, kind: "book_table", title: "Table for 2", payload: {} },
    }),
  );
  expect(proposed.action.state).toBe("pending");
  // No afterSeq: the tool waits from the agent's cursor, so only what happens from now on.
  const waiting = client.callTool({ name: "pollUpdates", arguments: { wait: 10 } });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await decideAction(deps(), { userRef: person.id, actionId: proposed.action.id, approve: true });
  const updates = data<{ events: { type: string; payload: { action?: { id: string } } }[] }>(
    await waiting,
  );
  expect(updates.events.map((event) => event.type)).toEqual(["action.approved"]);
  expect(updates.events[0]?.payload.action?.id).toBe(proposed.action.id);
  await client.close();
});

test("proposeAction as a task: working, then completed with the decision made in another process", async () => {
  const { token, person } = await newContact();
  const client = await httpClient(token);
  await client.listTools();
  const propose = (title: string) => ({
    name: "proposeAction",
    arguments: { to: person.num, kind: "book_table", title, payload: { seats: 2 } },
  });
  // The official client's stream: the task at once, then its status, then the result.
  const seen: string[] = [];
  let decision: unknown;
  for await (const message of client.experimental.tasks.callToolStream(propose("Table for 2"))) {
    if (message.type === "taskCreated") {
      seen.push(message.task.status);
      await decideAction(deps(), {
        userRef: person.id,
        actionId: message.task.taskId,
        approve: true,
        editedPayload: { seats: 4 },
      });
    } else if (message.type === "taskStatus") seen.push(message.task.status);
    else if (message.type === "result")
      decision = (message.result.structuredContent as { decision: unknown }).decision;
    else throw message.error;
  }
  expect(seen).toEqual(["working", "completed"]);
  expect(decision).toEqual({ state: "approved", edited: true, payload: { seats: 4 } });

  // tasks/result parks on the service until the person's rejection, made here, wakes it.
  const { task } = await client.request(
    { method: "tools/call", params: { ...propose("Table at 9"), task: {} } },
    CreateTaskResultSchema,
  );
  expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
  const parked = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await decideAction(deps(), {
    userRef: person.id,
    actionId: task.taskId,
    approve: false,
    rejection: { reason: "Too late", choice: "not_now" },
  });
  expect((await parked).structuredContent).toMatchObject({
    decision: { state: "rejected", rejection: { reason: "Too late", choice: "not_now" } },
  });
  expect((await client.experimental.tasks.listTasks()).tasks.map((one) => one.taskId)).toContain(
    task.taskId,
  );

  // Another agent cannot read it.
  const other = await httpClient((await newAgent()).token);
  await expect(other.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
  expect((await other.experimental.tasks.listTasks()).tasks).toEqual([]);
  await other.close();
  await client.close();
});

test("returns a voice note's audio as MCP audio content", async () => {
  const { token, conversationId } = await newContact();
  const client = await httpClient(token);
  const wav = wavBytes(400);
  const sent = data<{ message: { id: string } }>(
    await client.callTool({
      name: "sendMessage",
      arguments: {
        conversationId,
        type: "voice",
        content: "note",
        audioDuration: "0.05",
        audioData: dataUrl("audio/wav", wav),
      },
    }),
  );
  const audio = await client.callTool({
    name: "getMessageAudio",
    arguments: { messageId: sent.message.id },
  });
  expect(audio.isError).toBeFalsy();
  const [content] = audio.content as { type: string; data: string; mimeType: string }[];
  expect(content).toMatchObject({ type: "audio", mimeType: "audio/wav" });
  expect(Buffer.from(content?.data ?? "", "base64").equals(wav)).toBe(true);
  await client.close();
});

test("refusals are tool errors carrying the envelope: validation, not_a_contact, rate limit, pause", async () => {
  const { token, agent, person } = await newContact();
  const client = await httpClient(token);
  const invalid = envelopeOf(
    await client.callTool({
      name: "sendMessage",
      arguments: { to: person.num, type: "text", content: "" },
    }),
  );
  expect(invalid.code).toBe("validation_error");
  expect(invalid.issues?.length).toBeGreaterThan(0);
  expect(envelopeOf(await client.callTool({ name: "getAction", arguments: {} })).code).toBe(
    "validation_error",
  );

  const stranger = await createUser(deps(), {});
  const refused = await client.callTool({
    name: "sendMessage",
    arguments: { to: stranger.num, type: "text", content: "hello?" },
  });
  expect(envelopeOf(refused).code).toBe("not_a_contact");

  // The per-recipient limit (20 a minute), counted exactly as REST counts it.
  await awayFromMinuteBoundary(15_000);
  let limited: ReturnType<typeof envelopeOf> | undefined;
  for (let i = 0; i < 21 && !limited; i++) {
    const answer = await client.callTool({
      name: "sendMessage",
      arguments: { to: person.num, type: "text", content: `m${i}` },
    });
    if (answer.isError) limited = envelopeOf(answer);
  }
  expect(limited?.code).toBe("conversation_rate_limited");
  expect(limited?.retryAfterSeconds).toBeGreaterThan(0);

  await pauseAgent(deps(), agent.id);
  expect(envelopeOf(await client.callTool({ name: "getMe", arguments: {} })).code).toBe(
    "agent_paused",
  );
  await client.close();
});

test("the CLI's stdio bridge lists and calls the same tools", async () => {
  test.setTimeout(120_000);
  const { token, agent } = await newContact();
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["apps/cli/bin/switchboard.js", "mcp", "--token", token, "--url", `${base()}/api`],
    cwd: repoRoot,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>) },
  });
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(agentOperationIds);
  const me = await client.callTool({ name: "getMe", arguments: {} });
  expect((me.structuredContent as { id: string }).id).toBe(agent.id);
  const refused = await client.callTool({ name: "getAction", arguments: { actionId: "act_nope" } });
  expect(envelopeOf(refused).code).toBe("not_found");
  await client.close();
  expect(stderr.join("")).toBe("");

  // A refused token: one line on stderr, nothing on stdout, a failing exit.
  const bad = new StdioClientTransport({
    command: process.execPath,
    args: ["apps/cli/bin/switchboard.js", "mcp", "--token", "sbat_nope", "--url", `${base()}/api`],
    cwd: repoRoot,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>) },
  });
  const badErr: string[] = [];
  bad.stderr?.on("data", (chunk: Buffer) => badErr.push(chunk.toString()));
  await expect(new Client({ name: "e2e-bad", version: "1.0.0" }).connect(bad)).rejects.toThrow();
  await expect
    .poll(() => badErr.join(""))
    .toMatch(/^switchboard mcp: the token was refused by http:\/\/localhost:\d+ \(401\)[^\n]*\n$/);
});
